// The world as drawn: the ground picture (surfaces, relief, walls), the reference line,
// skid marks and dust from each wheel's slip as the simulator reports it (reference 000,
// section 9), the lidar's beams, the ghost of the best lap, and the cars. This keeps what
// is seen; painter.js turns it into pixels, in a worker where the browser has one.

import { Painter } from './painter.js';

const SKID_SLIP = 0.2;          // a tyre marks the ground past this combined slip ...
const SKID_FULL = 0.6;          // ... fully dark from this one
const MARKS_PX_PER_M = 8;
const MARKS_MAX_SIDE = 4096;
const MARKS_OPEN_M = 250;       // without a stage, marks are kept this far around the start
const DUST_PER_M = 1.2;         // particles per metre travelled, per unit of dust factor
const DUST_LIFE_S = 1.6;
const DUST_MAX = 1500;

function slipOf(car, k) {
  return Math.hypot(car.slip_ratio[k], Math.tan(car.slip_angle[k]));
}

// The painter in a worker, given the canvas (or, without OffscreenCanvas, in this thread).
function painterFor(canvas) {
  if (canvas.transferControlToOffscreen && typeof Worker !== 'undefined') {
    const worker = new Worker('/static/paint_worker.js', { type: 'module' });
    const offscreen = canvas.transferControlToOffscreen();
    worker.postMessage({ kind: 'canvas', canvas: offscreen }, [offscreen]);
    return { post: (message, transfer) => worker.postMessage(message, transfer || []) };
  }
  const painter = new Painter(canvas);
  return { post: (message) => painter.take(message) };
}

export class World {
  constructor(canvas) {
    this.canvas = canvas;
    this.painter = painterFor(canvas);
    this.ground = null;          // { x0, y0, width_m, height_m, surfaces, dust } once drawn
    this.path = null;
    this.marks = null;           // where the skid marks' canvas lies: world-aligned
    this.skidSegments = 0;
    this.newSkids = [];          // [x0, y0, x1, y1, alpha] in the marks' pixels, not yet sent
    this.dust = [];
    this.cars = [];
    this.scans = {};
    this.ghost = null;
    this.previousWheels = {};    // car name -> the wheels' last positions
    this.lastT = null;
  }

  setScene(scene) {
    this.path = scene.path;
    this.bounds = scene.bounds;
    this.ground = null;
    this.dust = [];
    this.previousWheels = {};
    this.scans = {};
    this.version = scene.version;
    this.painter.post({ kind: 'scene', path: scene.path });
    if (scene.ground) this.loadGround(scene);
    this.makeMarks(scene.bounds);
  }

  async loadGround(scene) {
    const g = scene.ground;
    const response = await fetch(
      `/ground.png?v=${scene.version}${location.search.replace('?', '&')}`);
    const image = await createImageBitmap(await response.blob());
    if (scene.version !== this.version) return;      // a newer scene came meanwhile
    const ground = Object.assign({ width_m: g.width_px / g.px_per_m,
                                   height_m: g.height_px / g.px_per_m }, g);
    this.painter.post({ kind: 'ground', ground: Object.assign({ image }, ground) }, [image]);
    this.ground = ground;
  }

  makeMarks(bounds) {
    this.skidSegments = 0;
    if (!bounds) { this.marks = null; return; }
    const [xmin, ymin, xmax, ymax] = bounds;
    const scale = Math.min(MARKS_PX_PER_M, MARKS_MAX_SIDE / Math.max(xmax - xmin, ymax - ymin, 1));
    this.marks = { width: Math.max(1, Math.ceil((xmax - xmin) * scale)),
                   height: Math.max(1, Math.ceil((ymax - ymin) * scale)),
                   x0: xmin, y0: ymin, scale };
    this.newSkids = [];
    this.painter.post({ kind: 'marks', marks: this.marks });
  }

  setCars(cars) {
    this.cars = cars;
    this.painter.post({ kind: 'cars', cars });
  }

  setScan(scan) {
    this.scans[scan.car] = scan;
    this.painter.post({ kind: 'scan', scan });
  }

  setGhost(ghost) {
    this.ghost = ghost.line && ghost.line.length > 1 ? ghost : null;
  }

  // Take a new state: lay skid marks and raise dust from each wheel's slip.
  takeState(state, cars) {
    if (!this.marks && state.cars.length) {      // no stage: marks around where the car is
      const { x, y } = state.cars[0];
      this.makeMarks([x - MARKS_OPEN_M, y - MARKS_OPEN_M, x + MARKS_OPEN_M, y + MARKS_OPEN_M]);
    }
    const dt = this.lastT === null ? 0 : Math.max(0, Math.min(state.t - this.lastT, 0.2));
    this.lastT = state.t;
    state.cars.forEach((car, index) => {
      const facts = cars[index];
      if (!facts) return;
      const wheels = this.wheelPositions(car, facts);
      const before = this.previousWheels[car.name];
      this.previousWheels[car.name] = wheels;
      if (!before || car.reset) return;
      for (let k = 0; k < 4; k++) {
        const step = Math.hypot(wheels[k][0] - before[k][0], wheels[k][1] - before[k][1]);
        if (step > 5) continue;                       // a teleport, not a slide
        const slip = slipOf(car, k);
        if (slip > SKID_SLIP && car.load[k] > 0) this.skid(before[k], wheels[k], slip);
        this.raiseDust(car, k, wheels[k], step, slip);
      }
    });
    this.ageDust(dt);
  }

  wheelPositions(car, facts) {
    const c = Math.cos(car.yaw), s = Math.sin(car.yaw);
    return facts.wheels.map(([x, y]) => [car.x + c * x - s * y, car.y + s * x + c * y]);
  }

  skid(from, to, slip) {
    const m = this.marks;
    if (!m) return;
    const alpha = 0.25 + 0.5 * Math.min((slip - SKID_SLIP) / (SKID_FULL - SKID_SLIP), 1);
    this.newSkids.push((from[0] - m.x0) * m.scale, m.height - (from[1] - m.y0) * m.scale,
                       (to[0] - m.x0) * m.scale, m.height - (to[1] - m.y0) * m.scale, alpha);
    this.skidSegments += 1;
  }

  // Dust in proportion to speed and slip on loose ground (reference 000: speed x
  // surfaceDustFactor x (1 + 2 slip)), as particles per metre the wheel travels.
  raiseDust(car, k, at, step, slip) {
    const g = this.ground;
    if (!g || !car.surface || car.surface[k] === null || car.surface[k] === undefined) return;
    const factor = g.dust[car.surface[k]] || 0;
    if (factor <= 0) return;
    let count = step * DUST_PER_M * factor * (1 + 2 * Math.min(slip, 1));
    const colour = g.surfaces[car.surface[k]] === 'snow' ? 1 : 0;
    while (count > 0 && this.dust.length < DUST_MAX) {
      if (count < 1 && Math.random() > count) break;
      count -= 1;
      const spread = 0.6 + 0.4 * Math.random();
      this.dust.push({ x: at[0], y: at[1], colour, age: 0, size: 0.3 + 0.3 * Math.random(),
                       vx: (Math.random() - 0.5) * 2 * spread, vy: (Math.random() - 0.5) * 2 * spread });
    }
  }

  ageDust(dt) {
    for (const p of this.dust) {
      p.age += dt; p.x += p.vx * dt; p.y += p.vy * dt; p.size += 1.2 * dt;
    }
    this.dust = this.dust.filter((p) => p.age < DUST_LIFE_S);
  }

  // Send the painter this frame: the camera, what moved, the new skid marks.
  draw(camera, state, width, height) {
    const dust = new Float64Array(this.dust.length * 5);
    this.dust.forEach((p, k) => dust.set(
      [p.x, p.y, p.size, 0.35 * (1 - p.age / DUST_LIFE_S), p.colour], 5 * k));
    const skids = new Float32Array(this.newSkids);
    this.newSkids = [];
    const cars = state ? state.cars.map((c) => ({
      name: c.name, x: c.x, y: c.y, yaw: c.yaw, roll: c.roll, pitch: c.pitch,
      steer: c.steer, load: c.load })) : [];
    this.painter.post({ kind: 'frame', width, height, dust, skids, cars,
                        camera: { x: camera.x, y: camera.y, angle: camera.angle,
                                  span: camera.span },
                        ghost: state ? this.ghostBody(state) : null },
                      [dust.buffer, skids.buffer]);
  }

  // Where the best lap's ghost is now, beside its car ({ x, y, yaw, index }), or null.
  ghostBody(state) {
    const ghost = this.ghost;
    if (!ghost) return null;
    const car = state.cars.find((c) => c.name === ghost.car);
    const index = this.cars.findIndex((c) => c.name === ghost.car);
    if (!car || index < 0 || car.lap_s === null || car.lap_s === undefined) return null;
    const pose = ghostPose(ghost.line, car.lap_s);
    return pose ? { x: pose[0], y: pose[1], yaw: pose[2], roll: 0, pitch: 0, index } : null;
  }
}

export function ghostPose(line, t) {
  if (t < line[0][0] || t > line[line.length - 1][0]) return null;
  let lo = 0, hi = line.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (line[mid][0] <= t) lo = mid; else hi = mid;
  }
  const a = line[lo], b = line[hi];
  const share = b[0] > a[0] ? (t - a[0]) / (b[0] - a[0]) : 0;
  const turn = Math.atan2(Math.sin(b[3] - a[3]), Math.cos(b[3] - a[3]));
  return [a[1] + share * (b[1] - a[1]), a[2] + share * (b[2] - a[2]), a[3] + share * turn];
}
