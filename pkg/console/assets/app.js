// The approval console. Everything shown comes from the approval API and is
// put on the page as text (textContent), never as markup.
"use strict";

(function () {
  const api = document.querySelector('meta[name="api"]').content;
  const token = document.querySelector('meta[name="csrf-token"]').content;
  const finalStatuses = ["applied", "conflict", "failed", "rejected", "expired"];
  const refreshEvery = 5000;
  const maxPages = 10;

  const $ = (id) => document.getElementById(id);
  const list = $("changes");
  const filter = $("filter");
  // Outcomes of decisions made in this page, by approval id: kept on screen
  // where the approver clicked until the filter changes.
  const decided = new Map();
  const open = new Set();
  let timer = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  async function call(method, path, body) {
    const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (method !== "GET") {
      init.headers[`X-CSRF-Token`] = token;
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body || {});
    }
    const resp = await fetch(api + path, init);
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    return { ok: resp.ok, status: resp.status, data };
  }

  async function listStatus(status) {
    const out = [];
    let next = "";
    for (let i = 0; i < maxPages; i++) {
      const q = new URLSearchParams({ status, limit: "100" });
      if (next) q.set("nextToken", next);
      const r = await call("GET", "/approvals?" + q.toString());
      if (!r.ok) throw new Error(errorText(r));
      out.push(...(r.data.approvals || []));
      next = r.data.nextToken || "";
      if (!next) break;
    }
    return out;
  }

  function errorText(r) {
    const e = r.data && r.data.error;
    if (e) return `${e.code} (${r.status}): ${e.message}`;
    return `HTTP ${r.status}`;
  }

  function when(iso) {
    if (!iso) return "";
    const t = new Date(iso).getTime();
    const s = Math.round((t - Date.now()) / 1000);
    const a = Math.abs(s);
    if (a < 5) return "just now";
    const unit = a < 90 ? [a, "s"] : a < 5400 ? [Math.round(a / 60), "min"] : a < 129600 ? [Math.round(a / 3600), "h"] : [Math.round(a / 86400), "d"];
    return s < 0 ? `${unit[0]} ${unit[1]} ago` : `in ${unit[0]} ${unit[1]}`;
  }

  function time(iso) {
    const t = el("time", null, when(iso));
    t.dateTime = iso;
    t.title = iso;
    return t;
  }

  // renderDiff turns a unified diff into a table with old and new line
  // numbers; additions, deletions, hunks and context get their own class.
  function renderDiff(diff, truncated) {
    const table = el("table", "diff");
    const body = el("tbody");
    let oldNo = 0, newNo = 0;
    for (const line of diff.split("\n")) {
      if (line === "") continue;
      const tr = el("tr");
      let cls = "ctx", a = "", b = "";
      const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      if (line.startsWith("--- ") || line.startsWith("+++ ")) {
        cls = "file";
      } else if (hunk) {
        cls = "hunk"; oldNo = +hunk[1]; newNo = +hunk[2];
      } else if (line.startsWith("+")) {
        cls = "add"; b = newNo++;
      } else if (line.startsWith("-")) {
        cls = "del"; a = oldNo++;
      } else if (line.startsWith(" ")) {
        a = oldNo++; b = newNo++;
      } else {
        cls = "note";
      }
      tr.className = cls;
      tr.append(el("td", "ln", a), el("td", "ln", b), el("td", "code", line));
      body.append(tr);
    }
    table.append(body);
    const wrap = el("div", "diffwrap");
    wrap.append(table);
    if (truncated) wrap.append(el("p", "muted", "The preview is truncated; the change itself is whole."));
    return wrap;
  }

  function outcome(v, message) {
    const p = el("p", "outcome " + v.status);
    let text = v.status;
    if (v.status === "applied" && v.result) text = `applied${v.result.etag ? " (etag " + v.result.etag + ")" : ""}`;
    if (v.result && v.result.error) text += `: ${v.result.error.message}`;
    if (v.status === "rejected" && v.reason) text += `: ${v.reason}`;
    if (message && !(v.result && v.result.error)) text += ` (${message})`;
    p.textContent = text;
    return p;
  }

  function card(v) {
    const li = el("li", "change " + v.status);
    li.dataset.id = v.approvalId;
    li.dataset.status = v.status;
    const head = el("div", "head");
    head.append(el("span", "badge " + v.status, v.status), el("span", "tool", v.tool), el("code", "path", v.path));
    const meta = el("p", "meta");
    meta.append(`requested by ${v.requestedBy} `, time(v.requestedAt));
    if (v.status === "pending") meta.append(", expires ", time(v.expiresAt));
    if (v.decidedBy) meta.append(`, decided by ${v.decidedBy} `, time(v.decidedAt));
    li.append(head, meta);
    const local = decided.get(v.approvalId);
    if (v.status !== "pending" && v.status !== "approving") {
      li.append(outcome(v, local && local.message));
    }
    const details = el("details", "preview");
    details.open = open.has(v.approvalId) || v.status === "pending";
    details.addEventListener("toggle", () => details.open ? open.add(v.approvalId) : open.delete(v.approvalId));
    details.append(el("summary", null, "Diff"), renderDiff((v.preview && v.preview.diff) || "", v.preview && v.preview.truncated));
    li.append(details);
    if (v.status === "pending") li.append(actions(v));
    if (local && local.error) li.append(el("p", "error", local.error));
    return li;
  }

  function actions(v) {
    const form = el("div", "actions");
    const approve = el("button", "approve", "Approve");
    approve.type = "button";
    const reason = el("input", "reason");
    reason.type = "text";
    reason.placeholder = "Reason for rejecting";
    reason.maxLength = 1000;
    reason.setAttribute("aria-label", "Reason for rejecting " + v.path);
    const reject = el("button", "reject", "Reject");
    reject.type = "button";
    approve.addEventListener("click", () => decide(v, "approve", {}, [approve, reject]));
    reject.addEventListener("click", () => decide(v, "reject", { reason: reason.value }, [approve, reject]));
    form.append(approve, reason, reject);
    return form;
  }

  async function decide(v, verb, body, buttons) {
    buttons.forEach((b) => (b.disabled = true));
    let r;
    try {
      r = await call("POST", `/approvals/${encodeURIComponent(v.approvalId)}/${verb}`, body);
    } catch (e) {
      decided.set(v.approvalId, { view: v, error: "The console could not be reached: " + e.message });
      render();
      return;
    }
    const e = r.data && r.data.error;
    if (r.ok) {
      decided.set(v.approvalId, { view: r.data });
    } else if (e && e.details && e.details.approval) {
      // A conflict: the record is decided and says why.
      decided.set(v.approvalId, { view: e.details.approval, message: e.message });
    } else {
      decided.set(v.approvalId, { view: v, error: errorText(r) });
    }
    await refresh();
  }

  let current = [];

  async function load() {
    const f = filter.value;
    let views;
    if (f === "decided") {
      views = (await Promise.all(finalStatuses.map(listStatus))).flat();
    } else {
      views = await listStatus(f);
    }
    const ids = new Set(views.map((v) => v.approvalId));
    for (const [id, d] of decided) {
      if (!ids.has(id) && (f === "pending" || f === "decided" || f === d.view.status)) views.push(d.view);
    }
    // Times sort by their value: the API trims trailing zeros of the
    // fraction ("…01.15Z" is after "…01.1Z"), so their text does not sort.
    const key = (v) => Date.parse((f === "pending" ? v.requestedAt : v.decidedAt || v.requestedAt) || "") || 0;
    views.sort((a, b) => key(b) - key(a) || (a.approvalId < b.approvalId ? -1 : 1));
    return views;
  }

  function render() {
    const byId = new Map(current.map((v) => [v.approvalId, v]));
    for (const [id, d] of decided) {
      if (!byId.has(id)) continue;
      if (d.view.status !== "pending") byId.set(id, d.view);
    }
    list.replaceChildren(...current.map((v) => card(byId.get(v.approvalId))));
    $("empty").hidden = current.length > 0;
  }

  async function refresh() {
    // Leave the page alone while someone types a reason.
    const a = document.activeElement;
    if (a && a.classList && a.classList.contains("reason") && a.value) return;
    try {
      current = await load();
      $("banner").hidden = true;
      render();
      $("updated").textContent = "updated " + new Date().toLocaleTimeString();
    } catch (e) {
      $("banner").textContent = "Could not load the approvals: " + e.message;
      $("banner").hidden = false;
    }
  }

  filter.addEventListener("change", () => { decided.clear(); open.clear(); refresh(); });
  $("refresh").addEventListener("click", refresh);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
  refresh();
  timer = setInterval(() => { if (!document.hidden) refresh(); }, refreshEvery);
  window.addEventListener("pagehide", () => clearInterval(timer));
})();
