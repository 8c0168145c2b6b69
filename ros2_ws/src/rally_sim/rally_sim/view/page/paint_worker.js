// The painter in a worker of its own: the page hands it its canvas once, then each frame.

import { Painter } from './painter.js';

let painter = null;

self.onmessage = (event) => {
  const message = event.data;
  if (message.kind === 'canvas') painter = new Painter(message.canvas);
  else if (painter) painter.take(message);
};
