// The trusted side of DenoCodeRuntime's sandbox process (the main module).
//
// The process runs without any permission. This isolate never runs program
// code: it starts a node:worker_threads worker (worker.js, sent by the host)
// and relays between it and the host:
//   host -> harness: JSON lines on stdin (hello, run, then binding replies);
//   harness -> host: frames on stdout, each `TAG + JSON + "\n"`, where TAG
//   holds a per-process secret that only this isolate knows. The program can
//   write to the same stdout, but cannot forge a frame; its bytes become
//   `stdout` log entries on the host side.
// Every worker message is re-checked here (the worker is the program's realm)
// and the host checks every frame again: nobody trusts the next hop.
import { Worker } from "node:worker_threads";

const encoder = new TextEncoder();
const LEVELS = new Set(["log", "info", "warn", "error", "debug"]);
const MAX_ERROR = 16_384;
let tag = null;
let worker = null;
let limits = null;
let logged = 0;
let settled = false;
let running = false;

function writeAll(bytes) {
  let offset = 0;
  while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
}

function send(message) {
  // One write per frame: frames up to PIPE_BUF bytes cannot interleave with program output.
  writeAll(encoder.encode(tag + JSON.stringify(message) + "\n"));
}

const isId = (v) => Number.isSafeInteger(v) && v >= 0;
const isText = (v, max) => typeof v === "string" && v.length <= max;

function relay(m) {
  if (settled || m === null || typeof m !== "object") return;
  if (m.t === "log" && LEVELS.has(m.level) && typeof m.text === "string") {
    if (logged > limits.maxLog) return;
    const text = m.text.slice(0, limits.maxLog + 1);
    logged += text.length;
    send({ t: "log", level: m.level, text });
  } else if (m.t === "call" && isId(m.id) && isId(m.ns) && isText(m.fn, 4096) && isText(m.args, limits.maxArgs)) {
    send({ t: "call", id: m.id, ns: m.ns, fn: m.fn, args: m.args });
  } else if (m.t === "done" && m.ok === true) {
    if (m.value === undefined && m.head === undefined) finish({ t: "done", ok: true });
    else if (isText(m.value, limits.maxValue)) finish({ t: "done", ok: true, value: m.value });
    else if (isText(m.head, limits.maxValue) && isId(m.size)) finish({ t: "done", ok: true, head: m.head, size: m.size });
  } else if (m.t === "done" && m.ok === false) {
    finish({ t: "done", ok: false, error: String(m.error).slice(0, MAX_ERROR) });
  }
}

function finish(message) {
  settled = true;
  send(message);
}

function describe(error) {
  try {
    return (error instanceof Error ? `${error.name}: ${error.message}` : `Uncaught ${Deno.inspect(error)}`).slice(0, MAX_ERROR);
  } catch {
    return "Uncaught <unprintable error>";
  }
}

function onLine(line) {
  if (tag === null) {
    const hello = JSON.parse(line);
    tag = "\x1e" + hello.secret + "\x1f";
    limits = hello.limits;
    worker = new Worker(new URL("data:text/javascript," + encodeURIComponent(hello.worker)));
    worker.on("message", relay);
    worker.on("error", (error) => { if (!settled) finish({ t: "done", ok: false, error: describe(error) }); });
    worker.on("exit", (code) => {
      send({ t: "exit", code: Number.isSafeInteger(code) ? code : -1 });
      Deno.exit(0);
    });
    send({ t: "ready" });
  } else if (!settled) {
    // First line after hello: the run (an object); later ones: replies, passed through as text.
    worker.postMessage(running ? line : JSON.parse(line));
    running = true;
  }
}

let buffer = "";
const decoder = new TextDecoder();
for await (const chunk of Deno.stdin.readable) {
  buffer += decoder.decode(chunk, { stream: true });
  let newline;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    onLine(line);
  }
}
// The host closed stdin: it is done with this process.
Deno.exit(0);
