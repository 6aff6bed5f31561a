// The main module of one DenoCodeRuntime sandbox process: it runs exactly one
// untrusted program, in this same isolate, and is then killed by the host.
//
// The process has no permission at all (every file, network, environment,
// subprocess and FFI op is refused by Deno itself), so the harness is not a
// security boundary: the host is. The host treats this pipe as a hostile
// peer: it re-checks every frame, enforces every budget itself (CPU, memory,
// wall clock, log and value bytes, calls and queued bytes), and answers each
// call id at most once. What the harness adds is *cost*: it refuses early
// what the host would refuse anyway, so a well-behaved pipe carries little.
// A program that subverts the harness (it shares the realm) can only forge
// frames it could have produced by calling, logging or returning.
//
//   host -> harness: JSON lines on stdin: hello (when spawned), run, replies;
//   harness -> host: frames on stdout, each `TAG + JSON + "\n"`, TAG holding a
//   per-process secret, so the program's own bytes on stdout (which it may
//   write freely) are never mistaken for a frame.
//
// Stdin is read only while something is awaited from the host (hello, run, a
// reply), so a program whose event loop empties while it still awaits ends at
// once (`beforeunload`) instead of waiting for the wall-clock budget.

const { parse, stringify } = JSON;
const { hasOwn, getPrototypeOf, keys, getOwnPropertySymbols, defineProperty, create, entries } = Object;
const { isArray } = Array;
const { isFinite, isSafeInteger } = Number;
const ObjectPrototype = Object.prototype;
const ArrayPrototype = Array.prototype;
const SetCtor = Set;
const MapCtor = Map;
const PromiseCtor = Promise;
const ErrorCtor = Error;
const TypeErrorCtor = TypeError;
const RangeErrorCtor = RangeError;
const call = Function.prototype.call.bind(Function.prototype.call);
const { slice, indexOf, isWellFormed, toWellFormed, replace, split, startsWith } = String.prototype;
const { join, filter, slice: arraySlice } = Array.prototype;
const { test } = RegExp.prototype;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encodeText = TextEncoder.prototype.encode;
const encode = (text) => call(encodeText, encoder, text);
const subarray = Uint8Array.prototype.subarray;
const byteCount = Object.getOwnPropertyDescriptor(getPrototypeOf(Uint8Array.prototype), "length").get;
const stdout = Deno.stdout;
const writeSync = stdout.writeSync.bind(stdout);
const stdinRead = Deno.stdin.read.bind(Deno.stdin);
const inspect = Deno.inspect;
const exit = Deno.exit;
const addListener = globalThis.addEventListener.bind(globalThis);
const MAX_ERROR = 16_384;
const LEVELS = { log: "log", info: "info", warn: "warn", error: "error", debug: "debug" };
const LONE_SURROGATE_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/;

let tag = null;
let limits = null;
let settled = false;

function writeAll(bytes) {
  const length = call(byteCount, bytes);
  let offset = 0;
  while (offset < length) offset += writeSync(call(subarray, bytes, offset));
}

function send(message) {
  // JSON.stringify asks every object it writes for a toJSON method, and the
  // program shares this realm: a toJSON it put on Object.prototype would
  // rewrite any frame (a log into a call the harness never counted). Every
  // field of a frame is a primitive, so a null-prototype copy, made with an
  // index loop (array iterators are the program's to patch too), leaves
  // stringify nothing to ask.
  const frame = create(null);
  const names = keys(message);
  for (let i = 0; i < names.length; i++) frame[names[i]] = message[names[i]];
  writeAll(encode(tag + stringify(frame) + "\n"));
}

// -- stdin: whole lines, read only on demand --------------------------------

const chunk = new Uint8Array(1 << 20);
let parts = [];
let queued = [];

async function nextLine() {
  for (;;) {
    if (queued.length) return queued.shift();
    const n = await stdinRead(chunk);
    if (n === null) exit(0); // the host closed stdin: it is done with this process
    let text = decoder.decode(chunk.subarray(0, n), { stream: true });
    let newline;
    while ((newline = call(indexOf, text, "\n")) >= 0) {
      parts.push(call(slice, text, 0, newline));
      queued.push(call(join, parts, ""));
      parts = [];
      text = call(slice, text, newline + 1);
    }
    if (text) parts.push(text);
  }
}

// -- JSON checks ------------------------------------------------------------

function jsonProblem(value, path, seen) {
  // Strict "survives a JSON round trip unchanged": what JSON.stringify would
  // silently drop, alter or throw on is refused instead; so are lone
  // surrogates, which are not Unicode text and which the host refuses.
  // `seen` counts the values too (seen.count), so a huge call stops early.
  if (++seen.count > limits.maxValues) return null;
  switch (typeof value) {
    case "string": return call(isWellFormed, value) ? null : `${path} is a string holding a lone surrogate`;
    case "boolean": return null;
    case "number": return isFinite(value) ? null : `${path} is a non-finite number`;
    case "object": break;
    default: return `${path} is ${typeof value === "bigint" ? "a BigInt" : typeof value}`;
  }
  if (value === null) return null;
  if (seen.has(value)) return `${path} is a circular reference`;
  const proto = getPrototypeOf(value);
  if (isArray(value)) {
    if (proto !== ArrayPrototype) return `${path} is not a plain array`;
    seen.add(value);
    for (let i = 0; i < value.length; i++) {
      if (!hasOwn(value, i)) return `${path}[${i}] is a hole`;
      const p = jsonProblem(value[i], `${path}[${i}]`, seen);
      if (p) return p;
    }
  } else {
    if (proto !== ObjectPrototype && proto !== null) return `${path} is not a plain object`;
    if (getOwnPropertySymbols(value).length) return `${path} has symbol keys`;
    seen.add(value);
    for (const key of keys(value)) {
      if (!call(isWellFormed, key)) return `${path} has a key holding a lone surrogate`;
      const p = jsonProblem(value[key], `${path}.${key}`, seen);
      if (p) return p;
    }
  }
  seen.delete(value);
  return null;
}

// -- console ----------------------------------------------------------------

function formatArgs(args) {
  // Deno's console format: printf-style specifiers in a leading string, then
  // strings as-is and everything else through Deno.inspect.
  const out = [];
  let rest = args;
  if (typeof args[0] === "string" && args.length > 1) {
    let i = 1;
    const head = call(replace, args[0], /%([sdifoOjc%])/g, (m, c) => {
      if (c === "%") return "%";
      if (i >= args.length) return m;
      const a = args[i++];
      switch (c) {
        case "s": return typeof a === "string" ? a : typeof a === "bigint" ? `${a}n`
          : (typeof a === "object" && a !== null) || typeof a === "symbol" ? inspect(a) : String(a);
        case "d": case "i": {
          if (typeof a === "bigint") return `${a}n`;
          if (typeof a === "symbol") return "NaN";
          const n = Number(a);
          return String(c === "i" ? Math.trunc(n) : n);
        }
        case "f": return typeof a === "symbol" ? "NaN" : String(Number(a));
        case "c": return "";
        default: return inspect(a);
      }
    });
    out.push(head);
    rest = call(arraySlice, args, i);
  } else if (typeof args[0] === "string") {
    out.push(args[0]);
    rest = call(arraySlice, args, 1);
  }
  for (const a of rest) out.push(typeof a === "string" ? a : inspect(a));
  return call(join, out, " ");
}

let logged = 0;

function emit(level, args) {
  // Every entry costs its characters plus one, as on the host, so empty lines
  // spend the budget too; past it nothing is sent (the host marks the cut).
  if (settled || logged > limits.maxLog) return;
  let text;
  try { text = formatArgs(args); } catch (e) { text = "<unprintable console arguments>"; }
  if (text.length > limits.maxLog + 1) text = call(slice, text, 0, limits.maxLog + 1);
  logged += text.length + 1;
  send({ t: "log", level, text: call(toWellFormed, text) });
}

function installConsole() {
  for (const name of keys(LEVELS)) console[name] = (...args) => emit(LEVELS[name], args);
  console.dir = (obj) => emit("log", [inspect(obj)]);
  console.table = (...args) => emit("log", args);
  console.trace = (...args) => emit("error", ["Trace:", ...args]);
  console.assert = (cond, ...args) => { if (!cond) emit("error", ["Assertion failed:", ...args]); };
}

// -- bindings ---------------------------------------------------------------

// A refused call rejects one microtask later, once the caller has attached its
// handlers: a promise rejected before that is tracked by Deno as possibly
// unhandled, and settling tens of thousands of those costs quadratic time.
const defer = queueMicrotask;
const refuse = (error) => new PromiseCtor((_, reject) => defer(() => reject(error)));

const pending = new MapCtor();
let nextId = 1;
let pendingBytes = 0;
let pumping = false;

async function pumpReplies() {
  // Read replies while any call waits for one; then stop reading, so an idle
  // program lets the event loop empty.
  pumping = true;
  try {
    while (pending.size > 0) onReply(await nextLine());
  } finally {
    pumping = false;
  }
}

function onReply(line) {
  let msg;
  try { msg = parse(line); } catch { return; }
  if (msg === null || typeof msg !== "object") return;
  const entry = pending.get(msg.id);
  if (!entry) return;
  pending.delete(msg.id);
  pendingBytes -= entry.bytes;
  if (msg.ok === true) entry.resolve(msg.value);
  else entry.reject(rejection(msg.name, String(msg.error)));
}

function rejection(name, text) {
  // The host's text reads "Error: <message>" the way the model reads a failed
  // call; the Error's own name supplies that prefix, so String(e) is the text.
  const Ctor = name === "TypeError" ? TypeErrorCtor : name === "RangeError" ? RangeErrorCtor : ErrorCtor;
  return new Ctor(call(startsWith, text, "Error: ") ? call(slice, text, 7) : text);
}

function callBinding(ns, fn, label, args) {
  if (settled) return refuse(new ErrorCtor(`${label}(): the program run has ended`));
  const seen = new SetCtor();
  seen.count = 0;
  const problem = jsonProblem(args, "arguments", seen);
  if (problem) return refuse(new TypeErrorCtor(`${label}(): arguments are not JSON: ${problem}`));
  if (seen.count > limits.maxValues) {
    return refuse(new RangeErrorCtor(
      `${label}(): arguments hold more than ${limits.maxValues} JSON values (every number, string, array and object counts)`));
  }
  const text = stringify(args);
  const bytes = call(byteCount, encode(text));
  if (bytes > limits.maxArgs) {
    return refuse(new RangeErrorCtor(
      `${label}(): JSON arguments are ${bytes} bytes, over the ${limits.maxArgs}-byte limit`));
  }
  if (nextId > limits.maxCalls) {
    return refuse(new RangeErrorCtor(
      `${label}(): binding call limit reached: a run may make at most ${limits.maxCalls} calls`));
  }
  if (pendingBytes + bytes > limits.maxQueued) {
    return refuse(new RangeErrorCtor(
      `${label}(): ${pendingBytes} bytes of arguments already wait for replies (limit ${limits.maxQueued}): ` +
      "await some calls before starting more"));
  }
  return new PromiseCtor((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject, bytes });
    pendingBytes += bytes;
    send({ t: "call", id, ns, fn, args: text, clock: takeClock() });
    if (!pumping) pumpReplies();
  });
}

function installBindings(namespaces) {
  namespaces.forEach(([global, names, open, aliases], ns) => {
    const own = create(null);
    names.forEach((fn, index) => {
      const label = `${global}.${fn}`;
      defineProperty(own, fn, { enumerable: true, value: (args) => callBinding(ns, index, label, args) });
    });
    // How a program spells a member: `tools.read_file`, or `tools["get-weather"]` for a non-identifier.
    const spell = (key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `${global}.${key}` : `${global}[${stringify(key)}]`);
    for (const alias of keys(aliases ?? {})) {
      const index = names.indexOf(aliases[alias]);  // before the program exists: nothing is patched yet
      if (index >= 0) defineProperty(own, alias, { enumerable: true, value: own[names[index]] });
    }
    const known = names.length ? `(known: ${names.map(spell).join(", ")})` : "(no tools are bound to this program)";
    const proxy = new Proxy(own, {
      get(target, key) {
        if (hasOwn(target, key)) return target[key];
        if (typeof key !== "string" || key === "then") return undefined;
        // An open namespace serves names it does not list: the host looks each one up when it is called.
        if (open) {
          if (!call(isWellFormed, key)) {
            return () => refuse(new TypeErrorCtor(`${global}[...]: the name holds a lone surrogate (not a tool name)`));
          }
          return (args) => callBinding(ns, key, spell(key), args);
        }
        return () => refuse(new TypeErrorCtor(`${spell(key)} is not a binding ${known}`));
      },
    });
    defineProperty(globalThis, global, { value: proxy, writable: true, configurable: true });
  });
}

// -- a rerun repeats its first run --------------------------------------------
//
// A program that waited for a human runs again from the start. So that it
// makes the same calls, Math.random() draws from the host's seed, and the
// first clock reads (Date.now(), new Date(), performance.now()) are answered
// with what the first run read, in order; every read is reported with the
// next call, as one string (a frame holds primitives only). Past the
// recorded reads the clock is live again.

const MAX_CLOCK = 10_000;
let clockReads = [];
let clockCount = 0;

function takeClock() {
  const text = call(join, clockReads, ",");
  clockReads = [];
  return text;
}

function installDeterminism(seed, replay) {
  const RealDate = Date;
  const realNow = RealDate.now;
  const perf = globalThis.performance;
  const realPerfNow = perf.now.bind(perf);
  const recorded = isArray(replay) ? replay : [];
  let next = 0;
  const read = (live) => {
    const value = next < recorded.length ? recorded[next++] : live();
    if (clockCount < MAX_CLOCK) { clockReads[clockReads.length] = value; clockCount++; }
    return value;
  };
  const now = () => read(() => call(realNow, RealDate));
  class ReplayDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(now());
      else super(...args);
    }
    static now() { return now(); }
  }
  const DateProxy = new Proxy(ReplayDate, { apply() { return new RealDate(now()).toString(); } });
  defineProperty(globalThis, "Date", { value: DateProxy, writable: true, configurable: true });
  defineProperty(perf, "now", { value: () => read(realPerfNow), writable: true, configurable: true });
  if (typeof seed === "number") {
    let a = seed >>> 0; // mulberry32: small, fast, and the same sequence for the same seed
    const random = () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    defineProperty(Math, "random", { value: random, writable: true, configurable: true });
  }
}

// -- what the program must not see or keep -----------------------------------

function confine() {
  // Web storage and the Cache API need no permission and would persist in the
  // shared Deno directory (the host also makes that impossible on disk).
  for (const name of ["caches", "CacheStorage", "Cache", "localStorage", "sessionStorage", "Storage"]) {
    delete globalThis[name];
  }
  delete Deno[Deno.internal]; // raw ops (an unfiltered execPath among them)
  const execPath = () => "deno"; // the install path is none of the program's business
  defineProperty(Deno, "execPath", { value: execPath, writable: false, configurable: false, enumerable: true });
  defineProperty(Deno, "mainModule", { value: "file:///program.ts", writable: false, configurable: false, enumerable: true });
}

// -- the run ------------------------------------------------------------------

const HEADER = "export default async function () {\n"; // own line: the program's lines and columns stay its own

const shiftLine = (m, line, col) => `program.ts:${Math.max(1, Number(line) - 1)}:${col}`;

function describeError(error, url, loading) {
  let text;
  try {
    if (loading && error instanceof ErrorCtor && typeof error.message === "string") {
      // A module that fails to load is a TypeError wrapping the real error
      // (often "SyntaxError: ..." with a code frame); report the real one.
      text = error.message;
      text = call(replace, text, /^(\s*)(\d+)( \|)/gm, (m, pad, n, bar) => `${pad}${Number(n) - 1}${bar}`);
    } else {
      text = error instanceof ErrorCtor && typeof error.stack === "string" ? error.stack : `Uncaught ${inspect(error)}`;
    }
  } catch {
    text = "Uncaught <unprintable error>";
  }
  text = call(join, call(split, text, url), "program.ts");
  const lines = [];
  const all = call(split, text, "\n");
  for (let i = 0; i < all.length; i++) { // index loops: array iterators and push are the program's to patch
    const line = all[i];
    const frame = call(test, /^\s+at /, line);
    if (frame && call(test, /(data:|blob:|ext:|harness\.js)/, line)) continue; // the harness's own frames
    // The program's lines are one below where the wrapper put them; columns are unchanged.
    lines[lines.length] = loading || frame ? call(replace, line, /program\.ts:(\d+):(\d+)/g, shiftLine) : line;
  }
  return call(toWellFormed, call(slice, call(join, lines, "\n"), 0, MAX_ERROR));
}

// Settling must not throw: once `settled` is set nothing else will send the
// done frame, and the program shares the realm (it may have broken
// Array.prototype.push, or return a Proxy whose traps throw). So whatever
// describes the outcome is guarded, and the frame always goes out.
function fail(error, url, loading = false) {
  if (settled) return;
  settled = true;
  let text;
  try { text = describeError(error, url, loading); } catch { text = "Uncaught <unprintable error>"; }
  send({ t: "done", ok: false, error: text });
}

function complete(value) {
  if (settled) return;
  settled = true;
  if (value === undefined) return send({ t: "done", ok: true });
  let text;
  try { text = stringify(value); } catch { text = undefined; }
  if (text !== undefined && call(test, LONE_SURROGATE_ESCAPE, text)) text = undefined; // not JSON
  if (text === undefined) {
    try { text = stringify(call(toWellFormed, inspect(value))); } catch { text = '"<uninspectable value>"'; }
  }
  const max = limits.maxValue;
  if (text.length > max) send({ t: "done", ok: true, head: call(toWellFormed, call(slice, text, 0, max)), size: text.length });
  else send({ t: "done", ok: true, value: text });
}

async function main() {
  const hello = parse(await nextLine());
  tag = "\x1e" + hello.secret + "\x1f";
  limits = hello.limits;
  // Deno sets up its TypeScript pipeline on the first TypeScript module: do it
  // now, while this process waits in the pool, not on the run's critical path.
  await import(URL.createObjectURL(new Blob(["export default async function (): Promise<boolean> {\n  const ready: boolean = true;\n  return ready;\n}\n"], { type: "application/typescript" })));
  send({ t: "ready" });
  const parentPid = Deno.ppid;
  // An orphan (its host was SIGKILLed) ends itself; unref'd, so it never keeps the loop alive.
  Deno.unrefTimer(setInterval(() => { if (Deno.ppid !== parentPid) exit(0); }, 1000));
  const run = parse(await nextLine());
  // Before any of the program exists: a process that dies before the host reads this never ran
  // it, so the host may run it on another process instead.
  send({ t: "received" });
  const url = URL.createObjectURL(new Blob([HEADER + run.program + "\n}"], { type: "application/typescript" }));
  addListener("error", (e) => { e.preventDefault(); fail(e.error ?? e.message, url); });
  addListener("unhandledrejection", (e) => { e.preventDefault(); fail(e.reason, url); });
  addListener("beforeunload", () => {
    if (!settled) { settled = true; send({ t: "idle" }); }
  });
  installConsole();
  installDeterminism(run.seed, run.clock);
  installBindings(run.namespaces);
  confine();
  let mod;
  try {
    mod = await import(url);
  } catch (error) {
    fail(error, url, true);
    return;
  }
  mod.default().then(complete, (error) => fail(error, url));
}

main();
