import { COMPOSER_JS } from './assets-composer.js';

/**
 * The console's only script and style sheet, compiled into the daemon at
 * build time and served from /console/assets/ (script-src 'self': no inline
 * script, no eval). The script is small and optional where it can be: links
 * and forms work without it; it adds the sign-in auto-submit, the revoke
 * and cancel confirmations, the live update of the page body over SSE
 * (region by region where the body has regions), the conversation
 * composer (assets-composer.ts), and the running clocks of the Turns page (elapsed time) and of the
 * Approvals page (the time left before a request's deadline), kept on the
 * person's side so that a ticking clock sends nothing over the stream).
 */
export const CLIENT_JS = `'use strict';
(function () {
  var login = document.querySelector('form[data-autosubmit]');
  if (login) { login.submit(); return; }
  var span = function (ms) {
    var s = Math.max(0, Math.floor(ms / 1000)), m = Math.floor(s / 60), h = Math.floor(m / 60);
    return h ? h + ' h ' + (m % 60) + ' min' : m ? m + ' min ' + (s % 60) + ' s' : s + ' s';
  };
  var tick = function () {
    var els = document.querySelectorAll('[data-since]');
    for (var i = 0; i < els.length; i++) {
      var at = Date.parse(els[i].getAttribute('data-since'));
      if (!isNaN(at)) els[i].textContent = span(Date.now() - at);
    }
    var until = document.querySelectorAll('[data-until]');
    for (var j = 0; j < until.length; j++) {
      var end = Date.parse(until[j].getAttribute('data-until'));
      if (!isNaN(end)) until[j].textContent = span(end - Date.now());
    }
  };
  tick();
  setInterval(tick, 1000);
  document.addEventListener('submit', function (e) {
    var f = e.target;
    var msg = f && f.getAttribute('data-confirm');
    if (msg && !window.confirm(msg)) e.preventDefault();
  });
${COMPOSER_JS}  var main = document.querySelector('main[data-live]');
  if (!main || !window.EventSource) return;
  var pending = null;
  // A focused control counts too, a button included: a redraw between its press and release would swallow the click and what was typed for it.
  var editing = function (within) {
    var a = document.activeElement;
    return a && within.contains(a) && (a.tagName === 'TEXTAREA' || a.tagName === 'INPUT' || a.tagName === 'SELECT' || a.tagName === 'BUTTON');
  };
  // A body made of regions ([data-region]) is redrawn region by region: only a region whose HTML changed is replaced, what lies outside every region (a composer) never is, and folded details keep their state.
  var sent = {};
  var patch = function (html) {
    var t = document.createElement('template');
    t.innerHTML = html;
    var fresh = t.content.querySelectorAll('[data-region]');
    if (!fresh.length) {
      if (editing(main)) return false;
      main.innerHTML = html;
      return true;
    }
    for (var i = 0; i < fresh.length; i++) {
      var name = fresh[i].getAttribute('data-region');
      var old = main.querySelector('[data-region="' + name + '"]');
      if (!old) { if (editing(main)) return false; main.innerHTML = html; sent = {}; return true; }
      if (editing(old)) return false;
    }
    for (var j = 0; j < fresh.length; j++) {
      var r = fresh[j], key = r.getAttribute('data-region'), was = main.querySelector('[data-region="' + key + '"]');
      if (sent[key] === r.outerHTML) continue;
      sent[key] = r.outerHTML;
      var open = was.querySelectorAll('details[open][data-fold]');
      for (var k = 0; k < open.length; k++) {
        var same = r.querySelector('details[data-fold="' + open[k].getAttribute('data-fold') + '"]');
        if (same) same.setAttribute('open', '');
      }
      var low = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
      was.replaceWith(r);
      if (key === 'history' && low) window.scrollTo(0, document.body.scrollHeight);
    }
    return true;
  };
  var apply = function () {
    if (pending === null || !patch(pending)) return;
    pending = null;
    tick();
    main.setAttribute('data-updated', String(Date.now()));
  };
  document.addEventListener('focusout', function () { setTimeout(apply, 0); });
  var es = new EventSource(main.getAttribute('data-live'));
  es.addEventListener('fragment', function (e) { pending = e.data; apply(); });
  es.addEventListener('open', function () { document.documentElement.setAttribute('data-live', 'open'); });
})();
`;

export const CSS = `
:root { color-scheme: light dark; --bg: #fff; --fg: #1b1f24; --mute: #57606a; --line: #d0d7de; --accent: #0969da; --bad: #cf222e; --ok: #1a7f37; --card: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --mute: #8d96a0; --line: #30363d; --accent: #4493f8; --bad: #f85149; --ok: #3fb950; --card: #161b22; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); }
header strong { margin-right: 1rem; }
nav a { display: inline-block; padding: .3rem .5rem; color: var(--fg); text-decoration: none; border-radius: 4px; }
nav a[aria-current=page] { background: var(--card); outline: 1px solid var(--line); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
main { padding: 1rem; max-width: 1400px; }
h1 { font-size: 1.3rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--mute); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, monospace; font-size: 12.5px; overflow-wrap: anywhere; }
.bad { color: var(--bad); } .ok { color: var(--ok); } .mute { color: var(--mute); }
.pre { white-space: pre-wrap; overflow-wrap: anywhere; } form.stack label { display: block; margin: .4rem 0; }
button { font: inherit; padding: .25rem .7rem; border: 1px solid var(--line); border-radius: 4px; background: var(--card); color: var(--fg); cursor: pointer; }
button.danger { color: var(--bad); }
input, select, textarea { font: inherit; padding: .25rem .4rem; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
form.inline { display: inline-flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: 0; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin-bottom: 1rem; }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--mute); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: .75rem; margin-bottom: 1rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; }
.card b { display: block; font-size: 1.4rem; }
svg.chart { width: 100%; max-width: 900px; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: 6px; }
svg.chart .calls { fill: var(--accent); } svg.chart .errors { fill: var(--bad); } svg.chart text { fill: var(--mute); font-size: 10px; }
dl.detail { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
dl.detail dt { color: var(--mute); }
pre { white-space: pre-wrap; word-break: break-all; background: var(--card); padding: .5rem; border-radius: 4px; }
.conv { display: grid; grid-template-columns: minmax(180px, 260px) 1fr; gap: 1rem; }
.conv aside { border-right: 1px solid var(--line); padding-right: .75rem; }
ul.convs { list-style: none; padding: 0; margin: 0; }
ul.convs li { padding: .2rem 0; }
ul.convs a[aria-current=page] { font-weight: 600; }
.kind { color: var(--mute); font-size: 11px; text-transform: uppercase; }
.badge { display: inline-block; min-width: 1.4em; padding: 0 .35em; border-radius: 1em; background: var(--accent); color: var(--bg); font-size: 12px; text-align: center; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
ol.msgs { list-style: none; padding: 0; margin: 0; }
li.msg { border-bottom: 1px solid var(--line); padding: .4rem 0; }
li.msg.mine { background: var(--card); padding-left: .5rem; }
li.msg .meta { margin: 0; color: var(--mute); font-size: 12px; }
li.msg .text { margin: .2rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
ul.turns, ul.calls { margin: .2rem 0; padding-left: 1.2rem; font-size: 13px; }
form.composer { margin-top: 1rem; display: flex; flex-direction: column; gap: .4rem; }
form.composer textarea { width: 100%; }
form.composer button { align-self: flex-start; }
.complete { position: relative; }
#mention-list { position: absolute; z-index: 2; left: 0; top: 100%; margin: 0; padding: .2rem 0; list-style: none; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; min-width: 220px; }
#mention-list [role=option] { padding: .2rem .6rem; cursor: pointer; }
#mention-list [aria-selected=true] { background: var(--accent); color: var(--bg); }
@media (max-width: 700px) { .conv { grid-template-columns: 1fr; } .conv aside { border-right: 0; } }
@media (max-width: 700px) { main { padding: .5rem; } th, td { padding: .25rem; } .wide { display: none; } }
`;
