// The heads-up display: speed, gear and rpm, the pedals and the steering, sideslip,
// each wheel's slip and load, a g-g circle, simulated time and the real-time factor,
// lap and sector times (best lap kept), the body's roll and pitch on springs.

const G = 9.81;
const GG_RANGE_G = 1.5;
const GG_TRAIL = 60;
const STILL_M_S = 0.5;

function seconds(value) {
  return value === null || value === undefined ? '-' : value.toFixed(2);
}

export class Hud {
  constructor() {
    this.element = (id) => document.getElementById(id);
    this.gg = this.element('gg').getContext('2d');
    this.trail = [];
    this.cars = [];
    this.drive = null;
    this.shown = {};       // what the HUD shows now, by name (read by the tests)
  }

  setCars(cars, followed) {
    this.cars = cars;
    const list = this.element('cars');
    list.innerHTML = '';
    cars.forEach((car, k) => {
      const line = document.createElement('div');
      line.textContent = `${k === followed ? '> ' : ''}${car.label || car.name || 'car'}`;
      line.style.color = car.colour;
      list.appendChild(line);
    });
    list.classList.toggle('hidden', cars.length < 2);
  }

  setDrive(drive) {
    this.drive = drive;
    const on = Object.entries(drive.assists || {}).filter(([, v]) => v).map(([k]) => k);
    this.element('assist-line').textContent = on.length ? `assists: ${on.join(', ')}` : '';
  }

  show(state, followed) {
    const car = state.cars[Math.min(followed, state.cars.length - 1)];
    if (!car) return;
    const speed = Math.hypot(car.vx, car.vy);
    const sideslip = speed > STILL_M_S ? Math.atan2(car.vy, Math.abs(car.vx)) * 180 / Math.PI : 0;
    const gear = car.gear_name !== undefined && car.gear_name !== null ? car.gear_name
      : (car.gear === null || car.gear === undefined ? '' : String(car.gear));
    this.shown = { speed_m_s: speed, speed_km_h: speed * 3.6, gear, sideslip_deg: sideslip,
                   t: state.t, car: car.name };
    this.text('speed', (speed * 3.6).toFixed(0));
    this.text('gear', gear);
    this.text('rpm', car.rpm === null || car.rpm === undefined ? '' : `${car.rpm.toFixed(0)} rpm`);
    this.text('sideslip', `sideslip ${sideslip.toFixed(1)}\u00b0`);
    this.bar('throttle', car.throttle);
    this.bar('brake', car.brake);
    this.steer(car.steer_share);
    ['fl', 'fr', 'rl', 'rr'].forEach((wheel, k) => {
      const slip = Math.hypot(car.slip_ratio[k], Math.tan(car.slip_angle[k]));
      const box = this.element(`wheel-${wheel}`);
      box.textContent = `${wheel} s ${slip.toFixed(2)} ${(car.load[k] / 1000).toFixed(2)} kN`;
      box.style.background = slip > 0.2 ? '#822' : slip > 0.1 ? '#664' : '#333';
    });
    this.text('time', `t ${state.t.toFixed(2)} s${state.paused ? ' (paused)' : ''}`);
    this.text('rtf', `x${(state.rtf || 0).toFixed(2)}`);
    this.text('body', car.roll === undefined || car.roll === null ? ''
      : `roll ${(car.roll * 180 / Math.PI).toFixed(1)}\u00b0 pitch ${(car.pitch * 180 / Math.PI).toFixed(1)}\u00b0`);
    this.laps(car);
    this.ggCircle(car);
  }

  text(id, value) {
    const element = this.element(id);
    if (element.textContent !== value) element.textContent = value;
  }

  bar(id, value) {
    const share = value === null || value === undefined ? 0 : Math.min(Math.max(value, 0), 1);
    this.element(id).style.width = `${(100 * share).toFixed(1)}%`;
  }

  steer(share) {
    const s = Math.min(Math.max(share || 0, -1), 1);
    const fill = this.element('steer');
    fill.style.width = `${(50 * Math.abs(s)).toFixed(1)}%`;
    fill.style.left = s > 0 ? `${(50 - 50 * s).toFixed(1)}%` : '50%';   // left turns fill left
  }

  laps(car) {
    const lap = car.lap;
    if (!lap) { this.text('laps', ''); return; }
    const sectors = (lap.sectors || []).map(seconds).join(' | ');
    const best = (lap.best_sectors || []).map(seconds).join(' | ');
    this.element('laps').innerHTML =
      `lap ${lap.count + 1}: ${seconds(lap.current)} s<br>` +
      `sectors ${sectors || '-'}<br>last ${seconds(lap.last)} s, best ${seconds(lap.best)} s` +
      (best ? `<br>best sectors ${best}` : '');
  }

  ggCircle(car) {
    const ctx = this.gg;
    const size = ctx.canvas.width;
    const r = size / 2 - 4;
    this.trail.push([car.ax / G, car.ay / G]);
    if (this.trail.length > GG_TRAIL) this.trail.shift();
    ctx.clearRect(0, 0, size, size);
    ctx.strokeStyle = '#555';
    for (const g of [0.5, 1.0, 1.5]) {
      ctx.beginPath();
      ctx.arc(size / 2, size / 2, r * g / GG_RANGE_G, 0, 2 * Math.PI);
      ctx.stroke();
    }
    const place = ([ax, ay]) => [size / 2 - ay / GG_RANGE_G * r, size / 2 - ax / GG_RANGE_G * r];
    ctx.fillStyle = 'rgba(255, 200, 60, 0.35)';
    for (const point of this.trail) {
      const [x, y] = place(point);
      ctx.fillRect(x - 1, y - 1, 2, 2);
    }
    const [x, y] = place(this.trail[this.trail.length - 1]);
    ctx.fillStyle = '#fc3';
    ctx.beginPath();
    ctx.arc(x, y, 4, 0, 2 * Math.PI);
    ctx.fill();
  }
}
