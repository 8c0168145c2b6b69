// The camera (reference 000, section 10): follows the car with a lag, looks ahead along
// its velocity, zooms out with speed; heading-up (chase), north-up (follow), or the whole
// stage from above (top). Switched live with C.

export const MODES = ['chase', 'follow', 'top'];
const LERP_1_S = 4.0;            // cameraLerpSpeed
const TURN_1_S = 3.0;            // cameraRotationSpeed
const LOOK_AHEAD_S = 0.5;        // look this far ahead along the velocity ...
const LOOK_AHEAD_LENGTHS = 5.0;  // ... at most this many car lengths
const VIEW_LENGTHS = 9.0;        // the view's height at rest, in car lengths
const ZOOM_S = 1.2;              // ... plus this many seconds of travel

function wrap(angle) {
  return Math.atan2(Math.sin(angle), Math.cos(angle));
}

export class Camera {
  constructor() {
    this.mode = 'chase';
    this.x = 0; this.y = 0; this.angle = 0; this.span = 40;   // metres of the view's height
    this.bounds = null;
    this.last = null;
    this.placed = false;
  }

  setBounds(bounds) {
    this.bounds = bounds;
  }

  next() {
    this.mode = MODES[(MODES.indexOf(this.mode) + 1) % MODES.length];
    this.placed = false;
  }

  // Move toward where the followed car (a state's car, or null) wants the camera.
  update(car, carLength, timeS) {
    const dt = this.last === null ? 0 : Math.min(timeS - this.last, 0.1);
    this.last = timeS;
    if (this.mode === 'top' || !car) {
      this.overview();
      return;
    }
    const speed = Math.hypot(car.vx, car.vy);
    const heading = car.yaw + (speed > 0.5 ? Math.atan2(car.vy, car.vx) : 0);
    const ahead = Math.min(speed * LOOK_AHEAD_S, LOOK_AHEAD_LENGTHS * carLength);
    const tx = car.x + ahead * Math.cos(heading);
    const ty = car.y + ahead * Math.sin(heading);
    const span = VIEW_LENGTHS * carLength + speed * ZOOM_S;
    const targetAngle = this.mode === 'chase' ? car.yaw : 0;
    if (!this.placed) {
      this.x = tx; this.y = ty; this.angle = targetAngle; this.span = span;
      this.placed = true;
      return;
    }
    const follow = Math.min(LERP_1_S * dt, 1);
    this.x += (tx - this.x) * follow;
    this.y += (ty - this.y) * follow;
    this.span += (span - this.span) * follow;
    this.angle += wrap(targetAngle - this.angle) * Math.min(TURN_1_S * dt, 1);
  }

  overview() {
    if (!this.bounds) return;
    const [xmin, ymin, xmax, ymax] = this.bounds;
    this.x = (xmin + xmax) / 2; this.y = (ymin + ymax) / 2;
    this.angle = 0;
    this.span = Math.max(ymax - ymin, (xmax - xmin) * this.aspectInverse || 1) * 1.05;
  }

  // The canvas's size: the whole stage fits it from above (painter.js places the view).
  setAspect(width, height) {
    this.aspectInverse = height / width;
  }
}
