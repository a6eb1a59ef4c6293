/* The table app: a second face of a Kozyr table. The bot is the source of truth; this page shows what the
   server sends (the user's own hand, the public table) and sends moves as their action text. No build step. */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const hashArgs = new URLSearchParams(location.hash.slice(1));
  const queryArgs = new URLSearchParams(location.search);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const S = { init: "", session: "", t: "", table: null, draft: null, busy: false, endAt: null, words: {} };

  const webApp = () => (window.Telegram && window.Telegram.WebApp) || null;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const w = (key) => S.words[key] || key;

  // -- Telegram: initData, theme ---------------------------------------------------------------------
  function initData() {
    const app = webApp();
    return (app && app.initData) || hashArgs.get("tgWebAppData") || "";
  }
  function themeParams() {
    const app = webApp();
    if (app && app.themeParams && Object.keys(app.themeParams).length) return app.themeParams;
    try { return JSON.parse(hashArgs.get("tgWebAppThemeParams") || "{}"); } catch (e) { return {}; }
  }
  function applyTheme() {
    const root = document.documentElement.style;
    for (const [key, value] of Object.entries(themeParams())) {
      if (typeof value === "string" && /^#[0-9a-fA-F]{3,8}$/.test(value)) root.setProperty("--tg-theme-" + key.replace(/_/g, "-"), value);
    }
  }
  function telegramReady() {
    const app = webApp();
    if (!app) return;
    try { app.ready(); app.expand(); app.onEvent("themeChanged", applyTheme); } catch (e) { /* an old client */ }
    applyTheme();
  }

  // -- the API -----------------------------------------------------------------------------------------
  async function api(method, route, body, params) {
    const url = new URL("api/" + route, location.href);
    for (const [k, v] of Object.entries(params || {})) url.searchParams.set(k, v);
    const headers = { "X-Telegram-Init-Data": S.init, "X-App-Session": S.session };
    if (body) headers["Content-Type"] = "application/json";
    const res = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
    let data = {};
    try { data = await res.json(); } catch (e) { data = { ok: false, text: String(res.status) }; }
    return { status: res.status, data };
  }
  const requestId = () => (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random()).replace(/-/g, "");
  const sessionKey = () => "kozyr:" + (new URLSearchParams(S.init).get("hash") || "");

  async function boot() {
    applyTheme();
    telegramReady();
    S.init = initData();
    const stored = sessionStorage.getItem(sessionKey());
    let got = null;
    if (stored) {
      try { Object.assign(S, JSON.parse(stored)); } catch (e) { /* ignore */ }
      got = await api("GET", "state", null, { t: S.t });
    }
    if (!got || got.status === 401) {
      S.session = "";
      const token = queryArgs.get("t") || hashArgs.get("tgWebAppStartParam") || "";
      got = await api("POST", "open", { t: token });
      if (got.status === 200) {
        S.session = got.data.session; S.t = got.data.t;
        sessionStorage.setItem(sessionKey(), JSON.stringify({ session: S.session, t: S.t }));
      }
    }
    if (got.status !== 200) { fatal(got.data.text || "…"); return; }
    render(got.data.table);
    stream();
  }

  function fatal(text) {
    $("status").textContent = text;
    $("status").className = "";
    document.body.dataset.state = "refused";
  }

  // -- the live stream (server-sent events read from fetch: an EventSource cannot send headers) -------
  async function stream() {
    let wait = 500;
    for (;;) {
      try {
        const url = new URL("api/stream", location.href);
        url.searchParams.set("t", S.t);
        const res = await fetch(url, { headers: { "X-Telegram-Init-Data": S.init, "X-App-Session": S.session } });
        if (res.status === 401 || res.status === 404) {
          const data = await res.json().catch(() => ({}));
          fatal(data.text || String(res.status));
          return;
        }
        offline(false);
        wait = 500;
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const chunk = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            if (onEvent(chunk) === "expired") return;
          }
        }
      } catch (e) { /* the network: try again */ }
      offline(true);
      await sleep(wait);
      wait = Math.min(wait * 2, 10000);
    }
  }
  function onEvent(chunk) {
    let event = "message", data = "";
    for (const line of chunk.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data += line.slice(6);
    }
    if (event === "expired") { fatal(w("offline")); return "expired"; }
    if (event === "table" && data) render(JSON.parse(data));
    return event;
  }
  function offline(yes) { document.body.classList.toggle("offline", yes); if (yes) toast(w("offline")); }

  // -- drawing -----------------------------------------------------------------------------------------
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function cardEl(text, cls) {
    const node = el("button", "card " + (cls || ""));
    node.type = "button";
    node.dataset.card = text;
    let shown = text, joker = false;
    if (text.startsWith("JK")) { joker = true; shown = text.includes("=") ? text.split("=")[1] : ""; }
    const suit = shown.slice(-1), rank = shown.slice(0, -1);
    if (joker) node.classList.add("joker");
    if (suit === "H" || suit === "D") node.classList.add("red");
    node.append(el("span", "r", joker && !shown ? "JK" : (joker ? "★" : "") + rank));
    if (SUITS[suit]) node.append(el("span", "s", SUITS[suit]));
    node.setAttribute("aria-label", text);
    return node;
  }

  function render(table) {
    if (!table || (S.table && table.version < S.table.version)) return;
    const fresh = !S.table || S.table.version !== table.version;
    S.table = table;
    S.words = table.words || S.words;
    document.documentElement.lang = table.lang || "en";
    document.title = table.title;
    $("title").textContent = table.title;
    const view = table.view || {};
    const mine = table.seat !== null && table.to_act === table.seat && table.status === "playing";
    const status = $("status");
    status.className = mine ? "mine" : "";
    if (table.over || table.status !== "playing") status.textContent = w("over");
    else if (mine) status.textContent = w("your_turn");
    else if (table.to_act !== null && table.to_act !== undefined) status.textContent = w("waiting").replace("{name}", table.names[table.to_act] || "");
    else status.textContent = "";
    if (table.seat === null) status.textContent += " · " + w("spectator");
    S.endAt = table.deadline && table.now ? Date.now() + (table.deadline - table.now) * 1000 : null;
    tick();
    drawScores(table);
    $("lines").textContent = (table.lines || []).join("\n");
    drawTrick(view, table.names);
    if (table.kind === "toggle") {
      if (fresh || !S.draft) resetDraft();
      drawRummy();
    } else {
      $("melds").replaceChildren();
      drawHand();
    }
    if (!document.body.dataset.rendered) document.body.dataset.rendered = String(Math.round(performance.now()));
    document.body.dataset.version = String(table.version);
    document.body.dataset.state = mine ? "my-turn" : "waiting";
  }

  function drawScores(table) {
    const box = $("scores");
    box.replaceChildren();
    (table.names || []).forEach((name, i) => {
      const span = el("span", "", name + ": " + ((table.scores || [])[i] ?? 0));
      if (i === table.to_act) span.classList.add("turn");
      if (i === table.seat) span.classList.add("me");
      box.append(span);
    });
  }

  function drawTrick(view, names) {
    const box = $("trick");
    box.replaceChildren();
    const trick = view.trick && view.trick.plays && view.trick.plays.length ? view.trick : null;
    for (const play of (trick ? trick.plays : [])) {
      const cell = el("div", "play");
      for (const c of play.cards) cell.append(cardEl(c));
      cell.append(el("span", "", names[play.seat] || ""));
      box.append(cell);
    }
  }

  function tick() {
    const clock = $("clock");
    let text = S.table ? S.table.clock || "" : "";
    if (S.endAt) {
      const left = Math.max(0, Math.round((S.endAt - Date.now()) / 1000));
      const h = Math.floor(left / 3600), m = Math.floor(left / 60) % 60, s = left % 60;
      text += " · " + (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(s).padStart(2, "0");
    }
    clock.textContent = text;
  }
  setInterval(tick, 1000);

  // -- trick and fishing games: tap a card ---------------------------------------------------------------
  function cardActions(card) {
    return (S.table.actions || []).filter((a) => a.action.split(" ").slice(1).includes(card));
  }
  function drawHand() {
    const table = S.table, hand = (table.view && table.view.hand) || [];
    $("handtitle").textContent = table.seat === null ? "" : w("hand");
    const box = $("hand");
    box.replaceChildren();
    const anyCard = hand.some((c) => cardActions(c).length);  // a bid or a pass leaves the cards alone
    for (const c of hand) {
      const options = cardActions(c);
      const node = cardEl(c, "mine " + (options.length ? "legal" : anyCard ? "dim" : ""));
      node.addEventListener("click", () => tapCard(c));
      box.append(node);
    }
    const moves = $("moves");
    moves.replaceChildren();
    const handSet = new Set(hand);
    for (const a of table.actions || []) {
      if (a.action.split(" ").slice(1).some((word) => handSet.has(word))) continue;
      moves.append(actButton(a.label, () => move(a.action)));
    }
    $("hint").textContent = anyCard ? w("hint_tap") : "";
  }
  function actButton(label, onClick, quiet) {
    const b = el("button", "act" + (quiet ? " quiet" : ""), label);
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  }
  function tapCard(card) {
    const options = cardActions(card);
    if (options.length === 1) move(options[0].action);
    else if (options.length > 1) choose(options);
  }
  function choose(options) {
    const box = $("choices");
    box.replaceChildren(el("div", "", w("choose")));
    for (const a of options) box.append(actButton(a.label, () => { $("chooser").hidden = true; move(a.action); }));
    box.append(actButton("✕", () => { $("chooser").hidden = true; }, true));
    $("chooser").hidden = false;
  }
  async function move(action) {
    if (S.busy) return;
    S.busy = true;
    try {
      const got = await api("POST", "move", { t: S.t, version: S.table.version, action, request: requestId() });
      if (got.data.text && !got.data.ok) toast(got.data.text);
      if (got.data.table) render(got.data.table);
    } finally { S.busy = false; }
  }

  // -- the rummies: drag cards into melds, then lay down ------------------------------------------------------
  function resetDraft() {
    const view = S.table.view || {};
    S.draft = {
      melds: (view.table || []).map((m) => m.split("-").map((c) => ({ c, own: false }))),
      hand: (view.hand || []).map((c) => ({ c, own: true })),
      building: -1,
    };
  }
  function drawRummy() {
    const table = S.table, d = S.draft, may = !!table.may_lay;
    const melds = $("melds");
    melds.replaceChildren();
    d.melds.forEach((meld, i) => {
      if (!meld.length) return;
      const row = el("div", "meld");
      row.dataset.drop = "m" + i;
      if (meld.some((x) => x.own)) row.classList.add("changed");
      meld.forEach((x, j) => row.append(dragCard(x, "m" + i, j, may)));
      melds.append(row);
    });
    if (may) {
      const fresh = el("div", "meld new", "+ " + w("new_meld"));
      fresh.dataset.drop = "new";
      melds.append(fresh);
    }
    $("handtitle").textContent = table.seat === null ? "" : w("hand");
    const hand = $("hand");
    hand.replaceChildren();
    hand.dataset.drop = "hand";
    d.hand.forEach((x, j) => hand.append(dragCard(x, "hand", j, may)));
    const moves = $("moves");
    moves.replaceChildren();
    if (may) {
      const placed = d.melds.some((m) => m.some((x) => x.own));
      const lay = actButton(w("confirm"), layDown);
      lay.disabled = !placed;
      lay.id = "lay";
      moves.append(lay, actButton(w("propose"), propose, true), actButton(w("reset"), () => { resetDraft(); drawRummy(); }, true));
    }
    for (const a of table.actions || []) moves.append(actButton(a.label, () => move(a.action), may));
    $("hint").textContent = may ? w("hint_lay") : "";
  }
  function dragCard(item, zone, index, may) {
    const node = cardEl(item.c, item.own ? "mine" + (zone !== "hand" ? " placed" : "") : "");
    node.dataset.zone = zone;
    node.dataset.index = String(index);
    if (may) node.addEventListener("pointerdown", (e) => startDrag(e, node, zone, index));
    return node;
  }
  function take(zone, index) {
    const list = zone === "hand" ? S.draft.hand : S.draft.melds[Number(zone.slice(1))];
    return list.splice(index, 1)[0];
  }
  function put(item, target) {
    const d = S.draft;
    if (target === "hand") {
      if (!item.own) return false;  // a table card stays on the table
      d.hand.push(item);
    } else if (target === "new") {
      d.melds.push([item]);
      d.building = d.melds.length - 1;
    } else d.melds[Number(target.slice(1))].push(item);
    return true;
  }
  function relocate(zone, index, target) {
    if (target === zone) return;
    const item = take(zone, index);
    if (!put(item, target)) put(item, zone);  // refused: back where it was
    drawRummy();
  }
  function tapPlace(zone, index) {  // one hand: a tap moves a hand card into the meld being built, and back
    const d = S.draft;
    if (zone === "hand") {
      const target = d.building >= 0 && d.melds[d.building] && d.melds[d.building].length ? "m" + d.building : "new";
      relocate(zone, index, target);
    } else if (zone.startsWith("m")) {
      const item = d.melds[Number(zone.slice(1))][index];
      if (item && item.own) relocate(zone, index, "hand");
    }
  }
  function startDrag(event, node, zone, index) {
    event.preventDefault();
    const x0 = event.clientX, y0 = event.clientY;
    let ghost = null, over = null;
    const target = (x, y) => {
      const hit = document.elementFromPoint(x, y);
      return hit ? hit.closest("[data-drop]") : null;
    };
    const onMove = (e) => {
      if (!ghost && Math.hypot(e.clientX - x0, e.clientY - y0) < 6) return;
      if (!ghost) {
        ghost = node.cloneNode(true);
        ghost.classList.add("ghost");
        document.body.append(ghost);
        node.classList.add("dim");
      }
      ghost.style.left = e.clientX - 22 + "px";
      ghost.style.top = e.clientY - 31 + "px";
      const now = target(e.clientX, e.clientY);
      if (now !== over) {
        if (over) over.classList.remove("over");
        if (now) now.classList.add("over");
        over = now;
      }
    };
    const onUp = (e) => {
      window.removeEventListener("pointermove", onMove);
      window.removeEventListener("pointerup", onUp);
      window.removeEventListener("pointercancel", onUp);
      if (over) over.classList.remove("over");
      if (!ghost) { tapPlace(zone, index); return; }
      ghost.remove();
      const drop = target(e.clientX, e.clientY);
      if (drop) relocate(zone, index, drop.dataset.drop);
      else drawRummy();
    };
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", onUp);
    window.addEventListener("pointercancel", onUp);
  }
  async function layDown() {
    if (S.busy) return;
    const layout = S.draft.melds.filter((m) => m.length).map((m) => m.map((x) => x.c).join("-"));
    S.busy = true;
    try {
      const got = await api("POST", "lay", { t: S.t, version: S.table.version, layout, request: requestId() });
      if (!got.data.ok && got.data.text) toast(got.data.text);
      if (got.data.table) render(got.data.table);
    } finally { S.busy = false; }
  }
  async function propose() {
    const d = S.draft;
    const cards = d.melds.flat().filter((x) => x.own).map((x) => x.c);  // none: the server's best lay-down
    const got = await api("POST", "propose", { t: S.t, cards });
    if (!got.data.ok) { toast(got.data.text || ""); return; }
    const table = (S.table.view.table || []).flatMap((m) => m.split("-").map(plainCard));
    const left = new Map();
    for (const c of table) left.set(c, (left.get(c) || 0) + 1);
    const hand = (S.table.view.hand || []).slice();
    d.melds = got.data.layout.map((m) => m.split("-").map((c) => {
      const k = plainCard(c);
      if (left.get(k)) { left.set(k, left.get(k) - 1); return { c, own: false }; }
      hand.splice(hand.indexOf(k), 1);
      return { c, own: true };
    }));
    d.hand = hand.map((c) => ({ c, own: true }));
    drawRummy();
  }
  const plainCard = (c) => (c.startsWith("JK") ? "JK" : c);

  let toastTimer = 0;
  function toast(text) {
    const box = $("toast");
    box.textContent = text;
    box.hidden = !text;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 3500);
  }

  window.addEventListener("load", telegramReady);
  boot().catch((e) => fatal(String(e)));
})();
