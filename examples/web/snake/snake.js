// Drives the snake page: loads snake.wasm, plays episode after episode
// (episode k on RNG stream k of the run's evaluation seed, as `rlhost
// eval` seeds its env k), one step per animation frame, and draws the board.
// URL parameters: episodes=K stops after K episodes and writes their
// scores into #results (as JSON); fast plays without waiting for frames;
// seed=HEX replaces the evaluation seed.
"use strict";
const params = new URLSearchParams(location.search);
const target = Number(params.get("episodes") || 0);
const fast = params.has("fast");
const $ = (id) => document.getElementById(id);

function fail(e) {
  $("error").textContent = String(e && e.stack || e);
  document.title = "error";
}

async function main() {
  const bytes = await (await fetch("snake.wasm")).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const w = instance.exports;
  const seed = BigInt("0x" + (params.get("seed") || RUN.evalSeed));
  const hi = Number(seed >> 32n), lo = Number(seed & 0xffffffffn);
  const W = w.snake_width(), H = w.snake_height();
  const canvas = $("board"), g = canvas.getContext("2d");
  const cell = Math.floor(Math.min(canvas.width / W, canvas.height / H));
  $("algo").textContent = RUN.algo + ", " + RUN.observation;

  // the policy's own speed: many actions on one observation
  w.snake_seed(hi, lo, 0);
  const reps = 20000;
  let t0 = performance.now();
  for (let i = 0; i < reps; i++) w.snake_act();
  const usPerAction = (performance.now() - t0) * 1000 / reps;
  $("act").textContent = usPerAction.toFixed(2) + " µs";

  const results = [];
  let episode = 0, steps = 0, frames = 0, fpsStart = performance.now();
  w.snake_seed(hi, lo, episode);

  function draw() {
    g.fillStyle = "#1b1b1b";
    g.fillRect(0, 0, canvas.width, canvas.height);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++)
        if (w.snake_cell(x, y) === 1) {
          g.fillStyle = "#e33";
          g.beginPath();
          g.arc((x + 0.5) * cell, (y + 0.5) * cell, cell * 0.38, 0, 2 * Math.PI);
          g.fill();
        }
    // the body from the head (bright) to the tail (dark), each cell joined to the next
    const n = w.snake_body_length();
    for (let k = n - 1; k >= 0; k--) {
      const i = w.snake_body(k), x = i % W, y = Math.floor(i / W);
      const shade = Math.round(230 - 150 * k / Math.max(1, n - 1));
      g.fillStyle = k === 0 ? "#bfe" : `rgb(40, ${shade}, 70)`;
      g.fillRect(x * cell + 3, y * cell + 3, cell - 6, cell - 6);
      if (k > 0) { // the joint towards the cell nearer the head
        const j = w.snake_body(k - 1), jx = j % W, jy = Math.floor(j / W);
        g.fillRect(Math.min(x, jx) * cell + 3, Math.min(y, jy) * cell + 3,
                   (Math.abs(x - jx) + 1) * cell - 6, (Math.abs(y - jy) + 1) * cell - 6);
      }
    }
    $("episode").textContent = episode;
    $("score").textContent = w.snake_score();
    $("steps").textContent = w.snake_length();
  }

  // one step; true when the page is done
  function step() {
    const end = w.snake_step(w.snake_act());
    steps++;
    if (!end) return false;
    results.push({ episode, score: w.snake_score(), return: w.snake_return(), length: w.snake_length(),
                   truncated: end === 2 });
    const mean = results.reduce((s, r) => s + r.score, 0) / results.length;
    $("mean").textContent = mean.toFixed(2) + " over " + results.length;
    episode++;
    if (target && episode >= target) {
      $("results").textContent = JSON.stringify({ episodes: results, mean_score: mean,
                                                  us_per_action: usPerAction });
      document.title = "done";
      return true;
    }
    w.snake_seed(hi, lo, episode);
    return false;
  }

  function frame(now) {
    frames++;
    if (now - fpsStart >= 1000) {
      $("fps").textContent = (frames * 1000 / (now - fpsStart)).toFixed(1);
      frames = 0;
      fpsStart = now;
    }
    const done = step();
    draw();
    if (!done) requestAnimationFrame(frame);
  }

  function burst() { // fast: many steps per turn of the event loop
    const start = performance.now();
    let done = false;
    while (!done && performance.now() - start < 20) done = step();
    draw();
    if (!done) setTimeout(burst, 0);
  }

  draw();
  if (fast) setTimeout(burst, 0);
  else requestAnimationFrame(frame);
}

main().catch(fail);
