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

// The page's results: shown in #results, the title "done", and with
// report also POSTed to ./report.
function finish(out) {
  const json = JSON.stringify(out);
  $("results").textContent = json;
  document.title = "done";
  if (params.has("report")) fetch("report", { method: "POST", body: json });
}

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
  if (RUN.versus) return versus(w, text);
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
      finish({ env, score_name: scoreName, episodes: results, mean_score: mean, us_per_action: usPerAction });
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

// A game of seats: a person plays the run's policy, searched by rlhost's
// own tree search in the module (host/web_versus.c), `simulations` leaves
// a move.  For tests: positions=M1,M2,... (each a game's moves from the
// opening, columns 1..7) writes the searched move and visit counts of
// each into #results; human=C1,C2,... plays a game with those columns
// for the person (human=first: the first column it may play, every move),
// seat=1 letting the policy move first, and writes the moves and the
// result.  With report, the results are also POSTed.
function versus(w, text) {
  $("stats").hidden = $("about").hidden = true;
  $("versus").hidden = false;
  $("text").hidden = false;
  $("board").hidden = true;
  $("title").textContent = `${RUN.env}: you against ${RUN.algo}, searched, in WebAssembly`;
  const A = w.web_versus_actions();
  const sims = () => Number(params.get("simulations") || $("simulations").value);
  const cPuct = Number(params.get("c_puct") || 1.25); // rlhost eval --search's for a network
  const show = (final) => {
    const t = w.web_versus_text(final ? 1 : 0);
    if (t) $("text").textContent = text(t);
  };
  const search = () => {
    const a = w.web_versus_search(sims(), cPuct);
    if (a < 0) throw new Error(text(w.web_error()));
    return a;
  };
  const playMoves = (moves) => { // a game's moves from its opening, columns 1..7
    for (const ch of moves) {
      if (w.web_versus_play(Number(ch) - 1) !== 0) throw new Error(`position ${moves}: move ${ch} is not allowed or ends the game`);
    }
  };

  if (params.has("positions")) {
    const out = [];
    for (const moves of params.get("positions").split(",")) {
      w.web_versus_new();
      playMoves(moves);
      const move = search();
      out.push({ moves, move, visits: Array.from(new Float32Array(w.memory.buffer, w.web_versus_visits(), A)) });
    }
    show(false);
    return finish({ env: RUN.env, simulations: sims(), positions: out });
  }

  let human = params.get("seat") === "1" ? 1 : 0, over = false;
  const moves = [];
  const status = (s) => { $("status").textContent = s; };
  const end = (g) => { // the game ended on seat g's move
    over = true;
    show(true);
    const r = w.web_versus_reward(human);
    status(r > 0 ? "You won." : r < 0 ? "It won." : "A draw.");
    return r;
  };
  // the searched policy's move, then the person's turn; true when the game ended
  const reply = () => {
    const a = search();
    moves.push(a + 1);
    if (w.web_versus_play(a) === 1) { end(1 - human); return true; }
    show(false);
    status(`It played column ${a + 1}. Your move.`);
    return false;
  };
  // the person's move a and the reply: -1 when a is not theirs to play,
  // else whether the game ended
  const humanMove = (a) => {
    if (over || w.web_versus_mover() !== human || !w.web_versus_legal(a)) return -1;
    moves.push(a + 1);
    if (w.web_versus_play(a) === 1) { end(human); return true; }
    show(false);
    status("Searching...");
    return reply();
  };
  const newGame = (seat) => {
    human = seat;
    over = false;
    moves.length = 0;
    w.web_versus_new();
    show(false);
    if (w.web_versus_mover() !== human) reply();
    else status("Your move.");
  };
  for (let a = 0; a < A; a++) {
    const b = document.createElement("button");
    b.textContent = String(a + 1);
    b.onclick = () => setTimeout(() => { try { humanMove(a); } catch (e) { fail(e); } }, 0);
    $("columns").appendChild(b);
  }
  $("first").onclick = () => newGame(0);
  $("second").onclick = () => newGame(1);
  if (params.has("human")) { // a scripted person: its columns in order, or "first": the first it may play
    const script = params.get("human"), list = script.split(",");
    newGame(human);
    for (let k = 0; !over && (script === "first" || k < list.length); k++) {
      let a = script === "first" ? 0 : Number(list[k]) - 1;
      while (script === "first" && a < A - 1 && !w.web_versus_legal(a)) a++;
      if (humanMove(a) === -1) throw new Error(`the person's move ${a + 1} is not allowed`);
    }
    return finish({ env: RUN.env, simulations: sims(), seat: human, moves, over,
                    reward: over ? w.web_versus_reward(human) : null });
  }
  newGame(human);
}

main().catch(fail);
