"""
The view: a running simulation in a browser, drawn from what the simulator publishes.

ROS-free: the transport (server.py: the page over HTTP and a WebSocket,
aiohttp), what the page may say (protocol.py), the stage's ground picture
(ground.py), the cars' facts and states as the page takes them
(frames.py), the page itself (page/: HTML, JavaScript, CSS, shipped here:
nothing from a CDN), and the in-process source for Gymnasium's human
render (inprocess.py). The ROS view node (ros/view/) feeds the same
server from the simulator's topics.
"""
