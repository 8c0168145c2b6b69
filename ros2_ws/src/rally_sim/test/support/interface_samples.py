"""Known message values that one process publishes and another checks."""

from ackermann_msgs.msg import AckermannDriveStamped
from geometry_msgs.msg import TransformStamped
from rally_sim_msgs.msg import WheelSlip
from rally_sim_msgs.msg import WheelTorqueCommand
from tf2_msgs.msg import TFMessage

TOPICS = {
    'ackermann_cmd': AckermannDriveStamped,
    'tf_sample': TFMessage,
    'wheel_torque_cmd': WheelTorqueCommand,
    'wheel_slip': WheelSlip,
}


def ackermann() -> AckermannDriveStamped:
    """Return a steering and speed command with distinct, exact float32 values."""
    msg = AckermannDriveStamped()
    msg.header.stamp.sec = 12
    msg.header.stamp.nanosec = 345
    msg.header.frame_id = 'base_link'
    msg.drive.steering_angle = 0.25
    msg.drive.steering_angle_velocity = 1.5
    msg.drive.speed = -3.75
    msg.drive.acceleration = 2.0
    msg.drive.jerk = 0.125
    return msg


def tf_message() -> TFMessage:
    """Return two transforms, odom -> base_link and base_link -> wheel_fl."""
    msg = TFMessage()
    for parent, child, x in (('odom', 'base_link', 1.5), ('base_link', 'wheel_fl', 1.15)):
        transform = TransformStamped()
        transform.header.frame_id = parent
        transform.child_frame_id = child
        transform.transform.translation.x = x
        transform.transform.translation.y = 0.776
        transform.transform.rotation.z = 0.6
        transform.transform.rotation.w = 0.8
        msg.transforms.append(transform)
    return msg


def wheel_torque() -> WheelTorqueCommand:
    """Return a per-wheel drive, brake and handbrake command."""
    msg = WheelTorqueCommand()
    msg.header.frame_id = 'base_link'
    msg.drive_torque = [0.0, 0.0, 150.0, -150.5]
    msg.brake_torque = [10.0, 20.0, 30.0, 40.0]
    msg.handbrake = 0.5
    return msg


def wheel_slip() -> WheelSlip:
    """Return a per-wheel slip state with every field set."""
    msg = WheelSlip()
    msg.header.frame_id = 'base_link'
    msg.wheel_names = ['fl', 'fr', 'rl', 'rr']
    msg.slip_ratio = [0.01, -0.02, 0.3, -1.0]
    msg.slip_angle = [0.05, 0.04, -0.1, -0.12]
    msg.normal_load = [3500.0, 4200.0, 3800.5, 0.0]
    msg.longitudinal_force = [-100.0, 120.0, 2500.0, -3000.0]
    msg.lateral_force = [-1500.0, -1600.0, 1200.0, 0.0]
    msg.wheel_angular_speed = [30.58, 30.6, 40.1, 0.0]
    msg.steer_angle = [0.2, 0.18, 0.0, 0.0]
    msg.friction_coefficient = [1.1, 1.1, 0.6, 0.6]
    return msg


SAMPLES = {
    'ackermann_cmd': ackermann,
    'tf_sample': tf_message,
    'wheel_torque_cmd': wheel_torque,
    'wheel_slip': wheel_slip,
}
