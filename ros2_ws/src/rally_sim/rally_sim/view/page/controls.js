// The person's hands: the keyboard and any gamepad (the browser's Gamepad API, standard
// mapping). What they do goes to the view server as it happens (an input message on every
// change); the server ramps the keys' steering, applies the stick's dead zone and curve
// and the assists, and publishes the commands a controller would.

const STEER_LEFT = ['ArrowLeft', 'KeyA'];
const STEER_RIGHT = ['ArrowRight', 'KeyD'];
const THROTTLE = ['ArrowUp', 'KeyW'];
const BRAKE = ['ArrowDown', 'KeyS'];
const HANDBRAKE = ['Space'];
const ACTIONS = { KeyE: 'gear_up', PageUp: 'gear_up', KeyQ: 'gear_down', PageDown: 'gear_down',
                  KeyR: 'reset', KeyP: 'pause' };
const PAD = { throttle: 7, brake: 6, handbrake: 0, gear_up: 5, gear_down: 4, reset: 3,
              pause: 9, camera: 8 };
const PAD_ACTIVE = 0.05;    // a stick or trigger past this has the pad take over
const QUANTUM = 0.005;      // analogue values are sent when they move this much
const KEY_LOG = 20000;

export class Controls {
  constructor(view) {
    this.view = view;
    this.held = new Set();
    this.source = 'keyboard';
    this.sent = null;
    this.pad = { buttons: [] };
    this.replay = null;
    this.keyLog = [];        // each driving key's change and when (the latency benchmark's)
    window.addEventListener('keydown', (event) => this.key(event, true));
    window.addEventListener('keyup', (event) => this.key(event, false));
    window.addEventListener('blur', () => this.release());
    this.settings();
    document.getElementById('play').addEventListener('click', () => this.togglePlay());
    document.getElementById('seek').addEventListener('change', (event) =>
      this.view.send({ type: 'replay', action: 'seek', t: Number(event.target.value) }));
  }

  key(event, down) {
    const code = event.code;
    const driving = [...STEER_LEFT, ...STEER_RIGHT, ...THROTTLE, ...BRAKE, ...HANDBRAKE];
    if (driving.includes(code) || code === 'Tab' || ACTIONS[code]) event.preventDefault();
    if (down && event.repeat) return;
    if (driving.includes(code)) {
      if (down) this.held.add(code); else this.held.delete(code);
      this.source = 'keyboard';
      const when = performance.timeOrigin + event.timeStamp;
      if (this.keyLog.length < KEY_LOG) this.keyLog.push({ code, down, t: when });
      this.sendKeys(when);
      return;
    }
    if (!down) return;
    if (ACTIONS[code]) this.view.send({ type: 'action', name: ACTIONS[code] });
    else if (code === 'KeyC') this.view.camera.next();
    else if (code === 'KeyH') toggle('help');
    else if (code === 'KeyO') toggle('settings');
    else if (code === 'Tab') this.view.follow(this.view.followed + 1);
  }

  any(codes) {
    return codes.some((code) => this.held.has(code));
  }

  sendKeys(keydownMs) {
    const steer = (this.any(STEER_LEFT) ? 1 : 0) - (this.any(STEER_RIGHT) ? 1 : 0);
    this.sendInput({ source: 'keyboard', steer, throttle: this.any(THROTTLE) ? 1 : 0,
                     brake: this.any(BRAKE) ? 1 : 0, handbrake: this.any(HANDBRAKE) ? 1 : 0 },
                   keydownMs);
  }

  sendInput(input, keydownMs) {
    if (this.view.role !== 'drive') return;
    const message = Object.assign({ type: 'input' }, input);
    if (keydownMs) message.keydown_ms = keydownMs;
    if (this.view.send(message)) this.sent = input;
  }

  // Let go of everything (the page lost the focus, or the connection).
  release() {
    this.held.clear();
    if (this.sent && this.view.role === 'drive') this.sendKeys();
  }

  // Each animation frame: read the gamepad; send what moved.
  poll() {
    const pads = navigator.getGamepads ? navigator.getGamepads() : [];
    const pad = Array.from(pads || []).find((p) => p && p.connected);
    if (!pad) return;
    const value = (k) => (pad.buttons[k] ? pad.buttons[k].value : 0);
    const pressed = (k) => Boolean(pad.buttons[k] && pad.buttons[k].pressed);
    const input = { source: 'gamepad', steer: clamp(-(pad.axes[0] || 0), -1, 1),
                    throttle: clamp(value(PAD.throttle), 0, 1), brake: clamp(value(PAD.brake), 0, 1),
                    handbrake: pressed(PAD.handbrake) ? 1 : 0 };
    const active = Math.abs(input.steer) > PAD_ACTIVE || input.throttle > PAD_ACTIVE
      || input.brake > PAD_ACTIVE || input.handbrake > 0;
    if (active) this.source = 'gamepad';
    for (const name of ['gear_up', 'gear_down', 'reset', 'pause', 'camera']) {
      const now = pressed(PAD[name]);
      if (now && !this.pad.buttons[PAD[name]]) {
        if (name === 'camera') this.view.camera.next();
        else this.view.send({ type: 'action', name });
      }
    }
    this.pad.buttons = pad.buttons.map((b) => b.pressed);
    if (this.source !== 'gamepad') return;
    const last = this.sent;
    const moved = !last || last.source !== 'gamepad' || ['steer', 'throttle', 'brake', 'handbrake']
      .some((k) => Math.abs(input[k] - last[k]) >= QUANTUM
             || (input[k] !== last[k] && (input[k] === 0 || Math.abs(input[k]) === 1)));
    if (moved) this.sendInput(input, performance.timeOrigin + performance.now());
  }

  setDrive(drive) {
    for (const [name, value] of Object.entries(drive.assists || {})) {
      const element = document.getElementById(name);
      if (!element) continue;
      if (element.type === 'checkbox') element.checked = Boolean(value);
      else { element.value = value; document.getElementById(`${name}_value`).textContent = value; }
    }
    for (const name of ['dead_zone', 'curve']) {
      if (drive[name] === undefined) continue;
      document.getElementById(name).value = drive[name];
      document.getElementById(`${name}_value`).textContent = drive[name];
    }
  }

  settings() {
    for (const name of ['speed_sensitive_steering', 'automatic_gearbox', 'abs', 'traction_control']) {
      document.getElementById(name).addEventListener('change', (event) =>
        this.view.send({ type: 'assists', [name]: event.target.checked }));
    }
    document.getElementById('counter_steer').addEventListener('change', (event) =>
      this.view.send({ type: 'assists', counter_steer: Number(event.target.value) }));
    for (const name of ['dead_zone', 'curve']) {
      document.getElementById(name).addEventListener('change', () => this.view.send({
        type: 'gamepad', dead_zone: Number(document.getElementById('dead_zone').value),
        curve: Number(document.getElementById('curve').value) }));
    }
  }

  setReplay(message) {
    const bar = document.getElementById('replay');
    bar.classList.remove('hidden');
    if (message.type === 'replay') {
      this.replay = message;
      document.getElementById('seek').max = message.duration;
      document.getElementById('play').textContent = message.playing ? 'pause' : 'play';
    }
    const t = message.t !== undefined ? message.t : 0;
    document.getElementById('seek').value = t;
    const duration = this.replay ? this.replay.duration : 0;
    document.getElementById('replay-time').textContent = `${t.toFixed(1)} / ${duration.toFixed(1)} s`;
  }

  togglePlay() {
    const playing = this.replay && this.replay.playing;
    this.view.send({ type: 'replay', action: playing ? 'pause' : 'play' });
  }
}

function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}

function toggle(id) {
  document.getElementById(id).classList.toggle('hidden');
}
