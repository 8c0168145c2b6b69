// The rally_sim view: connects to the view server, keeps the newest of what it says,
// draws it every animation frame, and (when it may drive) sends the person's inputs.
// The physics never runs here: every number drawn comes from the simulator.

import { Camera } from './camera.js';
import { Controls } from './controls.js';
import { Hud } from './hud.js';
import { World } from './world.js';

const RECONNECT_MS = 1000;
const STATS_MS = 1000;
const LATENCY_LOG = 20000;     // states (over five minutes at 60 a second)

class View {
  constructor() {
    this.canvas = document.getElementById('world');
    this.world = new World(this.canvas);
    this.camera = new Camera();
    this.hud = new Hud();
    this.controls = new Controls(this);
    this.role = null;
    this.state = null;         // the newest state message
    this.shownState = null;    // the state drawn last
    this.cars = [];            // each car's fixed facts (footprint, wheels, colour)
    this.followed = 0;
    this.socket = null;
    this.stats = { frames: 0, fps: 0, state_to_screen_ms: 0,
                   state_to_screen_max_ms: 0, drawn_states: 0 };
    this._frameTimes = [];
    this._latencies = [];
    this.latencyLog = [];      // [state made to frame, made to received] per state drawn [ms]
    this.connect();
    requestAnimationFrame((t) => this.frame(t));
    setInterval(() => this.report(), STATS_MS);
  }

  // ---- the connection -----------------------------------------------------

  connect() {
    const token = new URLSearchParams(location.search).get('token');
    const url = `ws://${location.host}/ws` + (token ? `?token=${encodeURIComponent(token)}` : '');
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onmessage = (event) => this.receive(JSON.parse(event.data));
    socket.onclose = () => {
      this.banner('connection lost: reconnecting ...');
      this.controls.release();
      setTimeout(() => this.connect(), RECONNECT_MS);
    };
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  banner(text) {
    const banner = document.getElementById('banner');
    banner.textContent = text || '';
    banner.classList.toggle('hidden', !text);
  }

  receive(message) {
    switch (message.type) {
      case 'hello':
        this.role = message.role;
        this.banner(null);
        document.title = `${message.title} (${message.role})`;
        break;
      case 'scene':
        this.world.setScene(message);
        this.camera.setBounds(message.bounds);
        break;
      case 'cars':
        this.cars = message.cars;
        this.world.setCars(message.cars);
        this.hud.setCars(message.cars, this.followed);
        break;
      case 'state':
        message.received_ms = performance.timeOrigin + performance.now();
        this.state = message;
        break;
      case 'scan':
        this.world.setScan(message);
        break;
      case 'drive':
        this.hud.setDrive(message);
        this.controls.setDrive(message);
        break;
      case 'ghost':
        this.world.setGhost(message);
        break;
      case 'replay':
      case 'replay_position':
        this.controls.setReplay(message);
        break;
      case 'refused':
        document.getElementById('refused').textContent = `refused: ${message.reason}`;
        break;
      default:
        break;
    }
  }

  // ---- drawing ------------------------------------------------------------

  frame(time) {
    requestAnimationFrame((t) => this.frame(t));
    this.controls.poll();
    const state = this.state;
    const now = performance.timeOrigin + performance.now();
    if (state && state !== this.shownState) {
      this.world.takeState(state, this.cars);
      if (state.wall_ms) {
        this._latencies.push(now - state.wall_ms);
        if (this.latencyLog.length < LATENCY_LOG) {
          this.latencyLog.push([now - state.wall_ms, state.received_ms - state.wall_ms]);
        }
      }
      this.shownState = state;
      this.stats.drawn_states += 1;
    }
    const car = state && state.cars.length ? state.cars[Math.min(this.followed,
      state.cars.length - 1)] : null;
    const width = this.canvas.clientWidth, height = this.canvas.clientHeight;
    this.camera.setAspect(width, height);
    this.camera.update(car, this.carLength(), time / 1000);
    this.world.draw(this.camera, state, width, height);
    if (state) {
      this.hud.show(state, this.followed);
    }
    this.stats.frames += 1;
    this._frameTimes.push(time);
  }

  carLength() {
    const car = this.cars[this.followed] || this.cars[0];
    return car ? car.length : 4.5;
  }

  follow(next) {
    const count = Math.max(this.cars.length, 1);
    this.followed = next % count;
    this.hud.setCars(this.cars, this.followed);
  }

  report() {
    const times = this._frameTimes;
    this._frameTimes = [];
    if (times.length > 1) {
      const span = (times[times.length - 1] - times[0]) / 1000;
      this.stats.fps = (times.length - 1) / span;
      let worst = 0;
      for (let k = 1; k < times.length; k++) worst = Math.max(worst, times[k] - times[k - 1]);
      this.stats.frame_ms_max = worst;
    }
    const latencies = this._latencies;
    this._latencies = [];
    if (latencies.length) {
      this.stats.state_to_screen_ms = latencies.reduce((a, b) => a + b, 0) / latencies.length;
      this.stats.state_to_screen_max_ms = Math.max(...latencies);
    }
    this.stats.skid_segments = this.world.skidSegments;
    this.stats.dust_particles = this.world.dust.length;
    this.send(Object.assign({ type: 'stats' }, this.stats));
  }
}

window.rallyView = new View();
