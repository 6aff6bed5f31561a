// The sandbox side of DenoCodeRuntime: runs INSIDE the node:worker_threads
// worker that holds the untrusted program. Everything here is reachable by
// the program, so it holds no secret and the parent (harness.js) re-checks
// every message it posts. Why a node worker rather than a web Worker: its
// module loads are permission-checked (closing the `import("file://…",
// {with: {type: "text"}})` hole of the main isolate) and it exits when its
// event loop empties, which is how a program that never settles is detected.
import { parentPort } from "node:worker_threads";

// Captured before the program runs, so a program that patches globals only
// confuses itself (the parent and the host re-validate everything anyway).
const post = parentPort.postMessage.bind(parentPort);
const inspect = Deno.inspect;
const { stringify, parse } = JSON;
const { hasOwn, getPrototypeOf, keys, getOwnPropertySymbols, defineProperty } = Object;
const { isArray } = Array;
const LEVELS = { log: "log", info: "info", warn: "warn", error: "error", debug: "debug" };

parentPort.once("message", (init) => { start(init); });

function jsonProblem(value, path, seen) {
  // Strict "survives a JSON round trip unchanged": what JSON.stringify would
  // silently drop, alter or throw on is refused instead.
  switch (typeof value) {
    case "string": case "boolean": return null;
    case "number": return Number.isFinite(value) ? null : `${path} is a non-finite number`;
    case "object": break;
    default: return `${path} is ${typeof value === "bigint" ? "a BigInt" : typeof value}`;
  }
  if (value === null) return null;
  if (seen.has(value)) return `${path} is a circular reference`;
  const proto = getPrototypeOf(value);
  if (isArray(value)) {
    if (proto !== Array.prototype) return `${path} is not a plain array`;
    seen.add(value);
    for (let i = 0; i < value.length; i++) {
      if (!hasOwn(value, i)) return `${path}[${i}] is a hole`;
      const p = jsonProblem(value[i], `${path}[${i}]`, seen);
      if (p) return p;
    }
  } else {
    if (proto !== Object.prototype && proto !== null) return `${path} is not a plain object`;
    if (getOwnPropertySymbols(value).length) return `${path} has symbol keys`;
    seen.add(value);
    for (const key of keys(value)) {
      const p = jsonProblem(value[key], `${path}.${key}`, seen);
      if (p) return p;
    }
  }
  seen.delete(value);
  return null;
}

function formatArgs(args) {
  // Deno's console format: printf-style specifiers in a leading string, then
  // strings as-is and everything else through Deno.inspect.
  const out = [];
  let rest = args;
  if (typeof args[0] === "string" && args.length > 1) {
    let i = 1;
    const head = args[0].replace(/%([sdifoOjc%])/g, (m, c) => {
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
    rest = args.slice(i);
  } else if (typeof args[0] === "string") {
    out.push(args[0]);
    rest = args.slice(1);
  }
  for (const a of rest) out.push(typeof a === "string" ? a : inspect(a));
  return out.join(" ");
}

function start(init) {
  const { program, namespaces, maxLog, maxValue, maxArgs } = init;
  let logged = 0;
  let settled = false;
  const emit = (level, args) => {
    if (logged > maxLog) return; // the host caps too; this only spares the pipe
    let text;
    try { text = formatArgs(args); } catch (e) { text = `<unprintable: ${e}>`; }
    if (text.length > maxLog + 1) text = text.slice(0, maxLog + 1);
    logged += text.length;
    post({ t: "log", level, text });
  };
  for (const name of Object.keys(LEVELS)) console[name] = (...args) => emit(LEVELS[name], args);
  console.dir = (obj) => emit("log", [inspect(obj)]);
  console.table = (...args) => emit("log", args);
  console.trace = (...args) => emit("error", ["Trace:", ...args]);
  console.assert = (cond, ...args) => { if (!cond) emit("error", ["Assertion failed:", ...args]); };

  // Binding calls: a reply listener is attached only while a call is in
  // flight, so an idle program leaves the worker's event loop empty.
  const pending = new Map();
  let nextId = 1;
  const onReply = (line) => {
    let msg;
    try { msg = parse(line); } catch { return; }
    const entry = pending.get(msg.id);
    if (!entry) return;
    pending.delete(msg.id);
    if (pending.size === 0) parentPort.off("message", onReply);
    if (msg.ok === true) entry.resolve(msg.value);
    else entry.reject(new Error(String(msg.error)));
  };
  const call = (ns, label, fn, args) => {
    const problem = jsonProblem(args, "arguments", new Set());
    if (problem) return Promise.reject(new TypeError(`${label}(): arguments are not JSON: ${problem}`));
    const text = stringify(args);
    if (text.length > maxArgs) {
      return Promise.reject(new RangeError(`${label}(): JSON arguments are ${text.length} characters, over the ${maxArgs} limit`));
    }
    return new Promise((resolve, reject) => {
      const id = nextId++;
      if (pending.size === 0) parentPort.on("message", onReply);
      pending.set(id, { resolve, reject });
      post({ t: "call", id, ns, fn, args: text });
    });
  };
  namespaces.forEach(([global, names], ns) => {
    const own = Object.create(null);
    for (const fn of names) {
      const label = `${global}.${fn}`;
      defineProperty(own, fn, { enumerable: true, value: (args) => call(ns, label, fn, args) });
    }
    // How a program spells a member: `tools.read_file`, or `tools["get-weather"]` for a non-identifier.
    const spell = (key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `${global}.${key}` : `${global}[${stringify(key)}]`);
    const known = names.length ? `(known: ${names.map(spell).join(", ")})` : "(no tools are bound to this program)";
    const proxy = new Proxy(own, {
      get(target, key) {
        if (hasOwn(target, key)) return target[key];
        if (typeof key !== "string" || key === "then") return undefined;
        return () => Promise.reject(new TypeError(`${spell(key)} is not a binding ${known}`));
      },
    });
    defineProperty(globalThis, global, { value: proxy, writable: true, configurable: true });
  });

  const fail = (error) => {
    if (settled) return;
    settled = true;
    post({ t: "done", ok: false, error: describe(error) });
  };
  globalThis.addEventListener("error", (e) => { e.preventDefault(); fail(e.error ?? e.message); });
  globalThis.addEventListener("unhandledrejection", (e) => { e.preventDefault(); fail(e.reason); });

  const url = URL.createObjectURL(new Blob([`export default async function () {${program}\n}`], { type: "application/typescript" }));
  const describe = (error) => {
    let text;
    try {
      text = error instanceof Error && typeof error.stack === "string" ? error.stack : `Uncaught ${inspect(error)}`;
    } catch { text = "Uncaught <unprintable error>"; }
    return text.split(url).join("program.ts").split("\n").filter((l) => !/^\s+at .*(data:|blob:|ext:)/.test(l)).join("\n");
  };
  (async () => {
    const mod = await import(url);
    return await mod.default();
  })().then((value) => {
    if (settled) return;
    settled = true;
    if (value === undefined) return post({ t: "done", ok: true });
    let text;
    try { text = stringify(value); } catch { text = undefined; }
    if (text === undefined) text = stringify(inspect(value));
    if (text.length > maxValue) post({ t: "done", ok: true, head: text.slice(0, maxValue), size: text.length });
    else post({ t: "done", ok: true, value: text });
  }, fail);
}
