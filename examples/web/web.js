// Drives the page: loads policy.wasm (an env plugin, an exported policy
// and host/web_host.c), plays episode after episode as `rlhost eval` plays
// them (from the run's evaluation seed), one step per animation frame, and
// draws the env's own frames.  URL parameters: episodes=K stops after K
// episodes and writes their scores into #results (as JSON), and with
// report also POSTs them to ./report (a test's server); fast plays without
// waiting for frames; seed=HEX replaces the evaluation seed.
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
  const bytes = await (await fetch("policy.wasm")).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const w = instance.exports;
  const text = (ptr) => {
    const m = new Uint8Array(w.memory.buffer, ptr);
    return new TextDecoder().decode(m.subarray(0, m.indexOf(0)));
  };
  const seed = BigInt("0x" + (params.get("seed") || RUN.evalSeed));
  if (w.web_open(Number(seed >> 32n), Number(seed & 0xffffffffn)) !== 0) throw new Error(text(w.web_error()));
  const env = text(w.web_env_name()), scoreName = text(w.web_score_name());
  $("title").textContent = `${env}, played by an rlhost policy compiled to WebAssembly`;
  $("algo").textContent = `${RUN.algo} on ${env}`;
  $("score_name").textContent = `mean ${scoreName}`;
  const H = w.web_frame_height(), W = w.web_frame_width(), pixels = W > 0 && H > 0;
  const canvas = $("board"), g = canvas.getContext("2d");
  const scale = pixels ? Math.max(1, Math.floor(400 / Math.max(W, H))) : 1;
  if (pixels) {
    canvas.width = W * scale;
    canvas.height = H * scale;
  } else { // an env that draws text only
    canvas.hidden = true;
    $("text").hidden = false;
  }
  const off = new OffscreenCanvas(Math.max(W, 1), Math.max(H, 1)), og = off.getContext("2d");
  const img = og.createImageData(Math.max(W, 1), Math.max(H, 1));

  // the policy's own speed: many actions on one observation
  w.web_begin(0);
  const reps = 20000;
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) w.web_act();
  // a browser may coarsen its clock (against timing attacks): a span it did
  // not see advance measures nothing
  const elapsed = performance.now() - t0;
  const usPerAction = elapsed > 0 ? elapsed * 1000 / reps : null;
  $("act").textContent = usPerAction === null ? "n/a (the clock did not advance)" : usPerAction.toFixed(2) + " µs";

  const results = [];
  let episode = 0, frames = 0, fpsStart = performance.now();
  w.web_begin(episode);

  function draw() {
    const ptr = pixels ? w.web_frame() : 0;
    if (!pixels) {
      const t = w.web_text();
      if (t) $("text").textContent = text(t);
    } else if (ptr) {
      const rgb = new Uint8Array(w.memory.buffer, ptr, W * H * 3);
      for (let i = 0, j = 0; i < W * H; i++, j += 3) {
        img.data[4 * i] = rgb[j];
        img.data[4 * i + 1] = rgb[j + 1];
        img.data[4 * i + 2] = rgb[j + 2];
        img.data[4 * i + 3] = 255;
      }
      og.putImageData(img, 0, 0);
      g.imageSmoothingEnabled = false;
      g.drawImage(off, 0, 0, canvas.width, canvas.height);
    }
    $("episode").textContent = episode;
    $("steps").textContent = w.web_length();
    $("return").textContent = w.web_return().toFixed(2);
  }

  // one step; true when the page is done
  function step() {
    if (w.web_act() !== 0) throw new Error("the policy refused the observation");
    const end = w.web_step();
    if (!end) return false;
    results.push({ episode, score: w.web_score(), return: w.web_return(), length: w.web_length(),
                   truncated: end === 2 });
    const mean = results.reduce((s, r) => s + r.score, 0) / results.length;
    $("mean").textContent = mean.toFixed(2) + " over " + results.length;
    if (target && episode + 1 >= target) { // the last: the page keeps showing it
      const json = JSON.stringify({ env, score_name: scoreName, episodes: results, mean_score: mean,
                                    us_per_action: usPerAction });
      $("results").textContent = json;
      document.title = "done";
      if (params.has("report")) fetch("report", { method: "POST", body: json });
      return true;
    }
    episode++;
    w.web_begin(episode);
    return false;
  }

  function frame(now) {
    try {
      frames++;
      if (now - fpsStart >= 1000) {
        $("fps").textContent = (frames * 1000 / (now - fpsStart)).toFixed(1);
        frames = 0;
        fpsStart = now;
      }
      const done = step();
      draw();
      if (!done) requestAnimationFrame(frame);
    } catch (e) { fail(e); }
  }

  function burst() { // fast: many steps per turn of the event loop
    try {
      const start = performance.now();
      let done = false;
      while (!done && performance.now() - start < 20) done = step();
      draw();
      if (!done) setTimeout(burst, 0);
    } catch (e) { fail(e); }
  }

  draw();
  if (fast) setTimeout(burst, 0);
  else requestAnimationFrame(frame);
}

main().catch(fail);
