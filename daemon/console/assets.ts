/**
 * The console's only script and style sheet, compiled into the daemon at
 * build time and served from /console/assets/ (script-src 'self': no inline
 * script, no eval). The script is small and optional where it can be: links
 * and forms work without it; it adds the sign-in auto-submit, the revoke
 * and cancel confirmations, the live update of the page body over SSE, and
 * the running clocks of the Turns page (elapsed time, kept on the person's
 * side so that a ticking clock sends nothing over the stream).
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
  };
  tick();
  setInterval(tick, 1000);
  document.addEventListener('submit', function (e) {
    var f = e.target;
    var msg = f && f.getAttribute('data-confirm');
    if (msg && !window.confirm(msg)) e.preventDefault();
  });
  var main = document.querySelector('main[data-live]');
  if (!main || !window.EventSource) return;
  var pending = null;
  var busy = function () {
    var a = document.activeElement;
    return a && main.contains(a) && (a.tagName === 'TEXTAREA' || a.tagName === 'INPUT' || a.tagName === 'SELECT') && a.type !== 'submit';
  };
  var apply = function () {
    if (pending === null || busy()) return;
    main.innerHTML = pending;
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
@media (max-width: 700px) { main { padding: .5rem; } th, td { padding: .25rem; } .wide { display: none; } }
`;
