// The inspector page: plain DOM, no build step. Every value from the store is
// written with textContent (never as markup), so a tool result holding
// <script> shows as text. Every request is relative to the page's own path
// (/s/<session>/): the session travels in the path, never in a cookie.
"use strict";
const CSRF = document.querySelector('meta[name="csrf"]').content;
const $ = (id) => document.getElementById(id);
const journalRows = new Map(); // recordId -> record
let filters = new URLSearchParams({ limit: "100" });

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}
const pretty = (value) => JSON.stringify(value, null, 2);
const when = (seconds) => new Date(seconds * 1000).toLocaleTimeString();
const waited = (seconds) => `${Math.max(0, Math.round(Date.now() / 1000 - seconds))} s`;

async function getJson(path) {
  const response = await fetch(path, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return response.json();
}

// -- approvals ------------------------------------------------------------------
const cards = new Map(); // approvalId -> its card, kept across updates so an edit in progress survives
const views = new Map(); // approvalId -> the parked call as the server shows it
let approvalEvents = 0; // stream events seen: a fetch that started before one of them is older than it
function renderApprovals(list) {
  for (const call of list) views.set(call.approvalId, call);
  showApprovals(list.map((call) => call.approvalId));
}

function showApprovals(ids) {
  $("approval-count").textContent = String(ids.length);
  $("no-approvals").hidden = ids.length > 0;
  const wanted = new Set(ids);
  for (const id of [...cards.keys()]) if (!wanted.has(id)) cards.delete(id);
  for (const id of [...views.keys()]) if (!wanted.has(id)) views.delete(id);
  for (const id of ids) if (!cards.has(id)) cards.set(id, approvalCard(views.get(id)));
  $("approvals").replaceChildren(...ids.map((id) => cards.get(id)));
}

function approvalCard(call) {
  const problem = el("p", { class: "problem", role: "alert" });
  const editor = el("textarea", { spellcheck: "false" });
  editor.value = pretty(call.arguments);
  const editing = el("div", { hidden: "" }, el("label", {}, "Edit the arguments (JSON)", editor),
    el("div", { class: "actions" }, el("button", { type: "button", class: "approve", onclick: () => sendEdited() }, "Approve with these arguments")));
  const remember = el("input", { type: "checkbox", name: "remember" });
  const message = el("input", { type: "text", name: "message", autocomplete: "off", placeholder: "why (the model reads it)" });
  async function send(outcome, args) {
    problem.textContent = "";
    const body = { approvalId: call.approvalId, outcome };
    if (args !== undefined) body.arguments = args;
    else if (remember.checked) body.remember = true; // a rule cannot carry edited arguments
    if (outcome !== "allowed-once" && message.value.trim()) body.message = message.value.trim();
    const response = await fetch("api/decide", {
      method: "POST", credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": CSRF }, body: JSON.stringify(body),
    });
    if (!response.ok) { problem.textContent = await response.text(); return; }
    refreshApprovals();
    if (body.remember) refreshRules();
  }
  function sendEdited() {
    let args;
    try { args = JSON.parse(editor.value); } catch (error) { problem.textContent = `not JSON: ${error.message}`; return; }
    const errors = validate(args, call.parameters, "(root)");
    if (errors.length) { problem.textContent = `does not match the tool's schema: ${errors.join("; ")}`; return; }
    send("allowed-once", args);
  }
  const card = call.card ? el("pre", { class: "tool-card", "aria-label": "the tool's card" }, pretty(call.card)) : "";
  return el("li", { class: "card", "data-approval": call.approvalId },
    el("h3", {}, call.tool),
    el("p", { class: "meta" }, `agent ${call.agentName} (${call.agentId}) · call ${call.callId} · waiting ${waited(call.createdAt)}`
      + (call.parentCallId ? ` · inside ${call.parentCallId}` : "")),
    call.reason ? el("p", {}, `Reason: ${call.reason}`) : "",
    el("p", { class: "meta" }, call.description),
    card,
    el("pre", { "aria-label": "arguments" }, pretty(call.arguments)),
    call.expiresAt ? el("p", { class: "meta" }, `expires at ${when(call.expiresAt)}`) : "",
    el("div", { class: "decide-options" },
      el("label", {}, remember, " Remember for this agent"),
      el("label", {}, "Message with a rejection ", message)),
    el("div", { class: "actions" },
      el("button", { type: "button", class: "approve", onclick: () => send("allowed-once") }, "Approve"),
      el("button", { type: "button", class: "reject", onclick: () => send("rejected") }, "Reject"),
      el("button", { type: "button", "aria-expanded": "false", onclick: (event) => {
        editing.hidden = !editing.hidden; event.target.setAttribute("aria-expanded", String(!editing.hidden));
        if (!editing.hidden) editor.focus();
      } }, "Edit arguments…")),
    editing, problem);
}

// The subset of JSON Schema tool parameters use: type, properties, required, items, enum, additionalProperties.
function validate(value, schema, path) {
  if (!schema || typeof schema !== "object" || "$preview" in schema) return [];
  const errors = [];
  const kinds = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number"
    ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
  if (kinds.length && !kinds.includes(kind) && !(kind === "integer" && kinds.includes("number")))
    return [`${path}: expected ${kinds.join(" or ")}`];
  if (schema.enum && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value)))
    errors.push(`${path}: not one of the allowed values`);
  if (kind === "object") {
    for (const name of schema.required || []) if (!(name in value)) errors.push(`${path}.${name}: required`);
    const properties = schema.properties || {};
    for (const [name, item] of Object.entries(value)) {
      if (name in properties) errors.push(...validate(item, properties[name], `${path}.${name}`));
      else if (schema.additionalProperties === false) errors.push(`${path}.${name}: not allowed`);
    }
  }
  if (kind === "array" && schema.items) value.forEach((item, index) => errors.push(...validate(item, schema.items, `${path}[${index}]`)));
  return errors;
}

async function refreshApprovals() {
  const before = approvalEvents;
  const list = await getJson("api/approvals");
  if (approvalEvents === before) renderApprovals(list); // else the stream already said something newer
}

// The stream sends the ids of every waiting call and the views of the new ones only.
function approvalsChanged(change) {
  approvalEvents += 1;
  refreshRules(); // a decision made elsewhere may have been remembered
  for (const call of change.added) views.set(call.approvalId, call);
  if (change.ids.every((id) => views.has(id))) showApprovals(change.ids);
  else refreshApprovals(); // a view this page never got (it connected in between): ask for the list
}

// -- journal --------------------------------------------------------------------
function renderJournal() {
  const records = [...journalRows.values()].sort((a, b) => b.startedAt - a.startedAt);
  const byCall = new Map(records.map((r) => [r.callId, r]));
  const rows = [];
  for (const record of records) {
    if (record.parentCallId && byCall.has(record.parentCallId)) continue; // nested under its run_code row
    rows.push(...recordRows(record, false));
    const subs = records.filter((r) => r.parentCallId === record.callId).sort((a, b) => a.startedAt - b.startedAt);
    for (const sub of subs) rows.push(...recordRows(sub, true));
  }
  $("journal-rows").replaceChildren(...rows);
}

const expanded = new Set();
const details = new Map(); // recordId -> the record with its payloads, fetched when its row is expanded
async function toggle(record) {
  if (expanded.has(record.recordId)) { expanded.delete(record.recordId); renderJournal(); return; }
  expanded.add(record.recordId);
  if (!details.has(record.recordId)) {
    for (const full of await getJson(`api/journal?call=${encodeURIComponent(record.callId)}&limit=500`)) details.set(full.recordId, full);
  }
  renderJournal();
}

function recordRows(record, nested) {
  const took = record.endedAt == null ? "…" : `${Math.round((record.endedAt - record.startedAt) * 1000)} ms`;
  const progress = record.progress ? ` (${pretty(record.progress)})` : "";
  const button = el("button", { type: "button", "aria-expanded": String(expanded.has(record.recordId)),
    onclick: () => toggle(record) }, record.tool);
  const cut = record.spilled ? el("span", { class: "spilled" }, ` · cut from ${size(record.spilled.bytes)}`) : "";
  const row = el("tr", { class: nested ? "sub" : "", "data-call": record.callId, "data-outcome": record.outcome },
    el("td", {}, when(record.startedAt)), el("td", {}, button),
    el("td", {}, el("span", { class: `outcome ${record.outcome}` }, record.outcome + progress), cut),
    el("td", {}, record.agentId || "–"), el("td", {}, record.callId), el("td", {}, took));
  if (!expanded.has(record.recordId)) return [row];
  const detail = el("td", { colspan: "6" });
  const full = details.get(record.recordId) || {};
  for (const field of ["arguments", "content", "value", "error", "meta"]) {
    if (full[field] == null) continue;
    detail.append(el("h4", {}, field), el("pre", {}, pretty(full[field])));
  }
  if (record.approvalId) detail.append(el("p", { class: "meta" }, `approval ${record.approvalId}`));
  if (record.spilled) detail.append(spilledReader(record));
  if (record.decidedBy || record.decisionMessage || record.approvalRule) {
    const parts = [record.decidedBy ? `decided by ${record.decidedBy}` : "decided",
      record.approvalRule ? `by rule ${record.approvalRule}` : "", record.decisionMessage ? `: ${record.decisionMessage}` : ""];
    detail.append(el("p", { class: "meta decision" }, parts.filter(Boolean).join(" ")));
  }
  return [row, el("tr", { class: "detail" }, detail)];
}

// -- spilled results ----------------------------------------------------------------
// A result past max_inline_bytes was cut for the model; its whole text is read here a page at a time.
const PAGE = 4096;
const size = (bytes) => (bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`);
const readers = new Map(); // recordId -> its reader, kept across renders so the page shown survives
function spilledReader(record) {
  if (readers.has(record.recordId)) return readers.get(record.recordId);
  const { bytes, characters, kept } = record.spilled;
  const text = el("pre", { class: "spilled-text", "aria-label": "the whole result" });
  const where = el("span", { class: "meta" });
  const problem = el("p", { class: "problem", role: "alert" });
  let offset = 0;
  let next = null;
  async function show(at) {
    problem.textContent = "";
    const params = new URLSearchParams({ call: record.callId, record: record.recordId, offset: String(at), limit: String(PAGE) });
    try {
      const page = await getJson(`api/spilled?${params}`);
      offset = page.offset;
      next = page.nextOffset;
      text.textContent = page.text;
      where.textContent = ` characters ${page.offset.toLocaleString()}–${(page.nextOffset ?? page.total).toLocaleString()} of ${page.total.toLocaleString()}`; // code points, as the offsets
    } catch (error) { problem.textContent = error.message; }
  }
  const reader = el("div", { class: "spilled-reader" },
    el("h4", {}, "whole result"),
    el("p", { class: "meta" }, `the model read its head and tail: ${size(bytes)} (${Number(characters).toLocaleString()} characters) in all`
      + (kept ? "" : "; the store could not keep it")),
    kept ? el("div", { class: "actions" },
      el("button", { type: "button", onclick: () => show(Math.max(0, offset - PAGE)) }, "◀ Previous"),
      el("button", { type: "button", onclick: () => { if (next != null) show(next); } }, "Next ▶"), where) : "",
    text, problem);
  readers.set(record.recordId, reader);
  if (kept) show(0);
  return reader;
}

let streamed = null; // rows the stream sent while a journal fetch was in flight: newer than the fetch
let journalAsked = 0; // filters change quickly: only the latest fetch's answer is shown
async function refreshJournal() {
  const asked = ++journalAsked;
  streamed = new Map();
  const rows = await getJson(`api/journal?${filters}`);
  if (asked !== journalAsked) return; // a later filter's fetch answers instead
  journalRows.clear();
  for (const record of rows) journalRows.set(record.recordId, record);
  for (const [id, record] of streamed) if (matchesFilters(record)) journalRows.set(id, record);
  streamed = null;
  renderJournal();
}

function matchesFilters(record) {
  if (filters.get("agent") && record.agentId !== filters.get("agent")) return false;
  if (filters.get("tool") && record.tool !== filters.get("tool")) return false;
  if (filters.get("outcome") && record.outcome !== filters.get("outcome")) return false;
  if (filters.get("errors") && !record.isError) return false;
  return true;
}

// Filters apply as they change: a box or a list at once, typed text once the typing pauses.
function applyFilters() {
  filters = new URLSearchParams({ limit: "100" });
  for (const [key, value] of new FormData($("filters"))) if (value) filters.set(key, String(value));
  refreshJournal();
}
let typing = null;
$("filters").addEventListener("submit", (event) => { event.preventDefault(); applyFilters(); });
$("filters").addEventListener("change", applyFilters);
$("filters").addEventListener("input", (event) => {
  if (event.target.type !== "text") return; // boxes and lists apply on "change"
  clearTimeout(typing);
  typing = setTimeout(applyFilters, 250);
});

// -- remembered rules ------------------------------------------------------------
function renderRules(rules) {
  $("rule-count").textContent = String(rules.length);
  $("no-rules").hidden = rules.length > 0;
  $("rules").replaceChildren(...rules.map((rule) => {
    const problem = el("span", { class: "problem", role: "alert" });
    async function forget() {
      const response = await fetch("api/forget", {
        method: "POST", credentials: "same-origin",
        headers: { "content-type": "application/json", "x-csrf-token": CSRF }, body: JSON.stringify({ ruleId: rule.ruleId }),
      });
      if (!response.ok) { problem.textContent = await response.text(); return; }
      refreshRules();
    }
    const said = rule.message ? ` (“${rule.message}”)` : "";
    const by = rule.decidedBy ? ` · by ${rule.decidedBy}` : "";
    return el("li", { "data-rule": rule.ruleId },
      el("span", {}, `${rule.tool} · agent ${rule.agentId} · ${rule.outcome}${said}${by}`),
      el("button", { type: "button", onclick: forget }, "Forget"), problem);
  }));
}
async function refreshRules() { renderRules(await getJson("api/rules")); }

// -- live -------------------------------------------------------------------------
// One stream per page; the server sends changed rows only. A page it cannot catch up gets "reset" and reloads.
let since = "";
function connect() {
  const stream = new EventSource(`api/events?since=${encodeURIComponent(since)}`);
  stream.addEventListener("open", () => { $("live").textContent = "live"; });
  stream.addEventListener("error", () => {
    if (stream.readyState !== EventSource.CLOSED) { $("live").textContent = "reconnecting…"; return; }
    $("live").textContent = "live updates paused; retrying…"; // refused (too many streams, or signed out)
    setTimeout(connect, 5000);
  });
  const on = (name, handle) => stream.addEventListener(name, (event) => {
    since = event.lastEventId || since; // where a new stream picks up if this one is refused and retried
    handle(JSON.parse(event.data));
  });
  on("journal", (records) => {
    for (const record of records) {
      if (streamed) streamed.set(record.recordId, record);
      if (matchesFilters(record)) journalRows.set(record.recordId, record);
    }
    renderJournal();
  });
  on("approvals", approvalsChanged);
  on("reset", () => { refreshApprovals(); refreshJournal(); });
  on("status", (status) => {
    $("live").textContent = status.ok ? "live" : `the store cannot be read: ${status.error}`;
  });
}

// The first view comes inside the page (one request to first paint); later ones from the API and the stream.
const initial = JSON.parse($("initial").textContent);
renderApprovals(initial.approvals);
renderRules(initial.rules);
for (const record of initial.journal) journalRows.set(record.recordId, record);
since = initial.since;
renderJournal();
document.body.dataset.ready = "1";
document.body.dataset.readyMs = String(Math.round(performance.now())); // since navigation began: the first paint's cost
connect();
