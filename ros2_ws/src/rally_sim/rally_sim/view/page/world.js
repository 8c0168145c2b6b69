// The world as drawn: the ground picture (surfaces, relief, walls), the reference line,
// skid marks and dust from each wheel's slip as the simulator reports it (reference 000,
// section 9), the lidar's beams, the ghost of the best lap, and the cars.

const SKID_SLIP = 0.2;          // a tyre marks the ground past this combined slip ...
const SKID_FULL = 0.6;          // ... fully dark from this one
const MARKS_PX_PER_M = 8;
const MARKS_MAX_SIDE = 4096;
const MARKS_OPEN_M = 250;       // without a stage, marks are kept this far around the start
const DUST_PER_M = 1.2;         // particles per metre travelled, per unit of dust factor
const DUST_LIFE_S = 1.6;
const DUST_MAX = 1500;
const ROLL_SHOWN = 8;           // the body's roll and pitch, shown this many times over
const WHEEL_WIDTH_SHARE = 0.35; // a wheel's drawn width, of its diameter

function slipOf(car, k) {
  return Math.hypot(car.slip_ratio[k], Math.tan(car.slip_angle[k]));
}

export class World {
  constructor(canvas) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
    this.ground = null;          // { image, x0, y0, width_m, height_m, surfaces, dust }
    this.path = null;
    this.marks = null;           // the skid marks' own canvas, world-aligned
    this.skidSegments = 0;
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
    if (scene.ground) {
      const image = new Image();
      const g = scene.ground;
      image.onload = () => {
        this.ground = Object.assign({ image, width_m: g.width_px / g.px_per_m,
                                      height_m: g.height_px / g.px_per_m }, g);
      };
      image.src = `/ground.png?v=${scene.version}${location.search.replace('?', '&')}`;
    }
    this.makeMarks(scene.bounds);
  }

  makeMarks(bounds) {
    this.skidSegments = 0;
    if (!bounds) { this.marks = null; return; }
    const [xmin, ymin, xmax, ymax] = bounds;
    const scale = Math.min(MARKS_PX_PER_M, MARKS_MAX_SIDE / Math.max(xmax - xmin, ymax - ymin, 1));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.ceil((xmax - xmin) * scale));
    canvas.height = Math.max(1, Math.ceil((ymax - ymin) * scale));
    this.marks = { canvas, context: canvas.getContext('2d'), x0: xmin, y0: ymin, scale };
  }

  setCars(cars) {
    this.cars = cars;
  }

  setScan(scan) {
    this.scans[scan.car] = scan;
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
    const ctx = m.context;
    const alpha = 0.25 + 0.5 * Math.min((slip - SKID_SLIP) / (SKID_FULL - SKID_SLIP), 1);
    ctx.strokeStyle = `rgba(20, 18, 16, ${alpha.toFixed(3)})`;
    ctx.lineWidth = Math.max(1, 0.22 * m.scale);
    ctx.lineCap = 'round';
    ctx.beginPath();
    ctx.moveTo((from[0] - m.x0) * m.scale, m.canvas.height - (from[1] - m.y0) * m.scale);
    ctx.lineTo((to[0] - m.x0) * m.scale, m.canvas.height - (to[1] - m.y0) * m.scale);
    ctx.stroke();
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
    const colour = g.surfaces[car.surface[k]] === 'snow' ? '245,245,250' : '200,180,140';
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

  draw(camera, state, timeS) {
    const canvas = this.canvas;
    if (canvas.width !== canvas.clientWidth || canvas.height !== canvas.clientHeight) {
      canvas.width = canvas.clientWidth; canvas.height = canvas.clientHeight;
    }
    const ctx = this.context;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#2a2d31';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const scale = camera.apply(ctx, canvas.width, canvas.height);
    const pixel = 1 / scale;
    this.drawImage(this.ground, (g) => [g.x0, g.y0, g.width_m, g.height_m]);
    this.drawImage(this.marks, (m) => [m.x0, m.y0, m.canvas.width / m.scale,
                                       m.canvas.height / m.scale], true);
    this.drawPath(pixel);
    this.drawDust();
    if (state) {
      this.drawScans(state, pixel);
      this.drawGhost(state, pixel);
      state.cars.forEach((car, index) => this.drawCar(car, this.cars[index], pixel));
    }
  }

  drawImage(layer, placement, isMarks) {
    if (!layer) return;
    const ctx = this.context;
    const [x0, y0, w, h] = placement(layer);
    ctx.save();
    ctx.translate(x0, y0 + h);
    ctx.scale(1, -1);                   // the picture's rows run down from its top
    ctx.imageSmoothingEnabled = !isMarks;
    ctx.drawImage(isMarks ? layer.canvas : layer.image, 0, 0, w, h);
    ctx.restore();
  }

  drawPath(pixel) {
    if (!this.path || this.path.length < 2) return;
    const ctx = this.context;
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.75)';
    ctx.lineWidth = 2 * pixel;
    ctx.setLineDash([8 * pixel, 8 * pixel]);
    ctx.beginPath();
    ctx.moveTo(this.path[0][0], this.path[0][1]);
    for (const [x, y] of this.path) ctx.lineTo(x, y);
    ctx.closePath();
    ctx.stroke();
    ctx.setLineDash([]);
  }

  drawDust() {
    const ctx = this.context;
    for (const p of this.dust) {
      const alpha = 0.35 * (1 - p.age / DUST_LIFE_S);
      ctx.fillStyle = `rgba(${p.colour}, ${alpha.toFixed(3)})`;
      ctx.beginPath();
      ctx.arc(p.x, p.y, p.size, 0, 2 * Math.PI);
      ctx.fill();
    }
  }

  drawScans(state, pixel) {
    const ctx = this.context;
    ctx.fillStyle = 'rgba(255, 60, 60, 0.9)';
    for (const scan of Object.values(this.scans)) {
      const [px, py, pyaw] = scan.pose;
      const size = 3 * pixel;
      scan.ranges.forEach((range, k) => {
        if (range === null || !(range > 0)) return;
        const a = pyaw + scan.angle_min + k * scan.angle_increment;
        ctx.fillRect(px + range * Math.cos(a) - size / 2, py + range * Math.sin(a) - size / 2,
                     size, size);
      });
    }
  }

  drawGhost(state, pixel) {
    const ghost = this.ghost;
    if (!ghost) return;
    const car = state.cars.find((c) => c.name === ghost.car);
    const facts = this.cars.find((c) => c.name === ghost.car);
    if (!car || !facts || car.lap_s === null || car.lap_s === undefined) return;
    const pose = ghostPose(ghost.line, car.lap_s);
    if (!pose) return;
    this.drawBody({ x: pose[0], y: pose[1], yaw: pose[2], roll: 0, pitch: 0 }, facts,
                  'rgba(255, 255, 255, 0.35)', pixel);
  }

  drawCar(car, facts, pixel) {
    if (!facts) return;
    this.drawBody(car, facts, facts.colour, pixel);
    const ctx = this.context;
    ctx.save();
    ctx.translate(car.x, car.y);
    ctx.rotate(car.yaw);
    facts.wheels.forEach(([x, y], k) => {     // the front wheels at their steer angle
      ctx.save();
      ctx.translate(x, y);
      ctx.rotate(car.steer[k] || 0);
      ctx.fillStyle = car.load[k] > 0 ? '#111' : '#8cf';     // light blue: in the air
      const r = facts.wheel_radius;
      const w = Math.max(2 * r * WHEEL_WIDTH_SHARE, 2 * pixel);
      ctx.fillRect(-r, -w / 2, 2 * r, w);
      ctx.restore();
    });
    ctx.restore();
    this.label(car, facts);
  }

  // The footprint, and a cabin shifted by the body's roll and pitch (shown ROLL_SHOWN times
  // over): a car on springs leans out of a bend and dives under braking, as it really does.
  drawBody(car, facts, colour, pixel) {
    const ctx = this.context;
    ctx.save();
    ctx.translate(car.x, car.y);
    ctx.rotate(car.yaw);
    ctx.fillStyle = colour;
    ctx.strokeStyle = 'rgba(0, 0, 0, 0.6)';
    ctx.lineWidth = pixel;
    polygon(ctx, facts.footprint);
    ctx.fill();
    ctx.stroke();
    const height = facts.cabin_height;
    const dx = ROLL_SHOWN * height * Math.sin(car.pitch || 0);
    const dy = -ROLL_SHOWN * height * Math.sin(car.roll || 0);
    ctx.fillStyle = 'rgba(255, 255, 255, 0.28)';
    ctx.beginPath();
    const [cx, cy, cl, cw] = facts.cabin;
    ctx.rect(cx - cl / 2 + dx, cy - cw / 2 + dy, cl, cw);
    ctx.fill();
    ctx.restore();
  }

  // Each car's name beside it, upright on the screen whatever the camera's turn.
  label(car, facts) {
    if (this.cars.length < 2) return;
    const ctx = this.context;
    const at = ctx.getTransform().transformPoint(new DOMPoint(car.x, car.y));
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = facts.colour;
    ctx.font = '12px system-ui, sans-serif';
    ctx.fillText(facts.label || car.name, at.x + 14, at.y - 14);
    ctx.restore();
  }
}

function polygon(ctx, points) {
  ctx.beginPath();
  points.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.closePath();
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
