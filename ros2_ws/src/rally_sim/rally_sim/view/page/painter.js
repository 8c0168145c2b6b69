// The world's pixels: the ground picture, the skid marks' canvas, the reference line, dust,
// lidar beams, the ghost and the cars, drawn from what world.js sends each frame. It runs in
// a worker on an OffscreenCanvas where the browser has them (paint_worker.js), so rasterizing
// a frame never holds up the page's thread, which takes the keys: a key's event waited for
// the software raster of the previous frame, up to 20 ms, when the page drew in place.

const ROLL_SHOWN = 8;           // the body's roll and pitch, shown this many times over
const WHEEL_WIDTH_SHARE = 0.35; // a wheel's drawn width, of its diameter
const DUST_FIELDS = 5;          // x, y, size, alpha, colour (0 loose ground, 1 snow)
const DUST_COLOURS = ['200,180,140', '245,245,250'];

export class Painter {
  constructor(canvas) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
    this.ground = null;          // { image, x0, y0, width_m, height_m }
    this.marks = null;           // { canvas, context, x0, y0, scale }
    this.path = null;
    this.cars = [];
    this.scans = {};
  }

  // One message from the page: { kind, ... } (see world.js).
  take(message) {
    switch (message.kind) {
      case 'scene':
        this.path = message.path; this.ground = null; this.scans = {};
        break;
      case 'ground':
        this.ground = message.ground;
        break;
      case 'marks':
        this.makeMarks(message.marks);
        break;
      case 'cars':
        this.cars = message.cars;
        break;
      case 'scan':
        this.scans[message.scan.car] = message.scan;
        break;
      case 'frame':
        this.skids(message.skids);
        this.draw(message);
        break;
      default:
        break;
    }
  }

  makeMarks(marks) {
    if (!marks) { this.marks = null; return; }
    const canvas = typeof OffscreenCanvas !== 'undefined'
      ? new OffscreenCanvas(marks.width, marks.height) : document.createElement('canvas');
    canvas.width = marks.width; canvas.height = marks.height;
    this.marks = Object.assign({ canvas, context: canvas.getContext('2d') }, marks);
  }

  // Lay skid segments on the marks' canvas: [x0, y0, x1, y1, alpha] in its pixels each.
  skids(segments) {
    const m = this.marks;
    if (!m || !segments) return;
    const ctx = m.context;
    ctx.lineWidth = Math.max(1, 0.22 * m.scale);
    ctx.lineCap = 'round';
    for (let k = 0; k < segments.length; k += 5) {
      ctx.strokeStyle = `rgba(20, 18, 16, ${segments[k + 4].toFixed(3)})`;
      ctx.beginPath();
      ctx.moveTo(segments[k], segments[k + 1]);
      ctx.lineTo(segments[k + 2], segments[k + 3]);
      ctx.stroke();
    }
  }

  draw(frame) {
    const canvas = this.canvas;
    if (canvas.width !== frame.width || canvas.height !== frame.height) {
      canvas.width = frame.width; canvas.height = frame.height;
    }
    const ctx = this.context;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#2a2d31';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const scale = place(ctx, frame.camera, canvas.width, canvas.height);
    const pixel = 1 / scale;
    const g = this.ground;
    if (g) this.drawImage(g.image, g.x0, g.y0, g.width_m, g.height_m, true);
    const m = this.marks;
    if (m) this.drawImage(m.canvas, m.x0, m.y0, m.canvas.width / m.scale,
                          m.canvas.height / m.scale, false);
    this.drawPath(pixel);
    this.drawDust(frame.dust);
    this.drawScans(pixel);
    if (frame.ghost) {
      const facts = this.cars[frame.ghost.index];
      if (facts) this.drawBody(frame.ghost, facts, 'rgba(255, 255, 255, 0.35)', pixel);
    }
    frame.cars.forEach((car, index) => this.drawCar(car, this.cars[index], pixel));
  }

  drawImage(image, x0, y0, w, h, smooth) {
    const ctx = this.context;
    ctx.save();
    ctx.translate(x0, y0 + h);
    ctx.scale(1, -1);                   // the picture's rows run down from its top
    ctx.imageSmoothingEnabled = smooth;
    ctx.drawImage(image, 0, 0, w, h);
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

  drawDust(dust) {
    const ctx = this.context;
    for (let k = 0; k < dust.length; k += DUST_FIELDS) {
      ctx.fillStyle = `rgba(${DUST_COLOURS[dust[k + 4]]}, ${dust[k + 3].toFixed(3)})`;
      ctx.beginPath();
      ctx.arc(dust[k], dust[k + 1], dust[k + 2], 0, 2 * Math.PI);
      ctx.fill();
    }
  }

  drawScans(pixel) {
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

// Set the context's transform from the camera ({ x, y, angle, span }): world metres to
// pixels, the view's up the camera's heading, y up as in the odom frame. Returns px per m.
export function place(context, camera, width, height) {
  const scale = height / camera.span;
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.translate(width / 2, height / 2);
  context.scale(scale, -scale);
  context.rotate(-(camera.angle - Math.PI / 2));   // the heading points up the screen
  context.translate(-camera.x, -camera.y);
  return scale;
}

function polygon(ctx, points) {
  ctx.beginPath();
  points.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.closePath();
}
