/**
 * The conversation composer's part of the console script (assets.ts puts it
 * in the one script file): sending without leaving the page, and completing
 * `@` mentions from the names the daemon serves (the profile's agents and
 * teams), by keyboard as by pointer. Without it the form posts and the page
 * comes back; text is always set with textContent, never as HTML.
 */
export const COMPOSER_JS = `
  var composer = document.querySelector('form[data-composer]');
  if (composer) (function () {
    var text = composer.querySelector('textarea');
    var list = document.getElementById('mention-list');
    var status = composer.querySelector('[data-composer-status]');
    var names = null, shown = [], active = -1, start = -1;
    var load = function () {
      if (names) return;
      names = [];
      fetch(text.getAttribute('data-names'), { credentials: 'same-origin' })
        .then(function (r) { return r.json(); })
        .then(function (j) {
          names = j.agents.map(function (a) { return { name: a.id, label: a.displayName, kind: 'agent' }; })
            .concat(j.teams.map(function (t) { return { name: t.handle, label: t.displayName, kind: 'team' }; }));
          complete();
        })
        .catch(function () { names = null; });
    };
    var close = function () {
      list.hidden = true;
      list.textContent = '';
      shown = [];
      active = -1;
      text.removeAttribute('aria-activedescendant');
    };
    var mark = function () {
      var items = list.querySelectorAll('[role=option]');
      for (var i = 0; i < items.length; i++) items[i].setAttribute('aria-selected', i === active ? 'true' : 'false');
      if (active >= 0) text.setAttribute('aria-activedescendant', 'mention-' + active);
    };
    var take = function (i) {
      var n = shown[i];
      if (!n) return;
      var caret = text.selectionStart;
      text.value = text.value.slice(0, start) + '@' + n.name + ' ' + text.value.slice(caret);
      var at = start + n.name.length + 2;
      text.setSelectionRange(at, at);
      close();
      text.focus();
    };
    var complete = function () {
      var before = text.value.slice(0, text.selectionStart);
      var m = /(^|[^A-Za-z0-9._-])@([A-Za-z0-9._-]{0,128})$/.exec(before);
      if (!m || !names) { if (m) load(); close(); return; }
      start = before.length - m[2].length - 1;
      var q = m[2].toLowerCase();
      shown = names.filter(function (n) {
        return n.name.toLowerCase().indexOf(q) === 0 || n.label.toLowerCase().indexOf(q) === 0;
      }).slice(0, 8);
      if (!shown.length) { close(); return; }
      list.textContent = '';
      shown.forEach(function (n, i) {
        var li = document.createElement('div');
        li.id = 'mention-' + i;
        li.setAttribute('role', 'option');
        li.setAttribute('data-name', n.name);
        li.textContent = '@' + n.name + (n.label !== n.name ? ' (' + n.label + ')' : '') + ' · ' + n.kind;
        li.addEventListener('mousedown', function (e) { e.preventDefault(); take(i); });
        list.appendChild(li);
      });
      active = 0;
      list.hidden = false;
      mark();
    };
    text.addEventListener('input', complete);
    text.addEventListener('blur', function () { setTimeout(close, 0); });
    text.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); close(); composer.requestSubmit(); return; }
      if (list.hidden) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        active = (active + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
        mark();
      } else if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        take(active);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        close();
      }
    });
    composer.addEventListener('submit', function (e) {
      e.preventDefault();
      var button = composer.querySelector('button[type=submit]');
      button.disabled = true;
      status.textContent = 'Sending…';
      fetch(composer.action, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'x-console-fetch': '1' },
        body: new URLSearchParams(new FormData(composer)),
      })
        .then(function (r) {
          // A refusal before the action (session ended, token stale) is a page, not JSON.
          return r.json().catch(function () {
            return { ok: false, error: { code: 'refused', message: 'the console refused it (HTTP ' + r.status + '); reload the page' } };
          });
        })
        .then(function (j) {
          if (j.ok) { text.value = ''; status.textContent = 'Sent.'; }
          else status.textContent = 'Not sent: ' + j.error.code + ': ' + j.error.message;
        })
        .catch(function () { status.textContent = 'Not sent: the daemon did not answer.'; })
        .then(function () { button.disabled = false; text.focus(); });
    });
  })();
`;
