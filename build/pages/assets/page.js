// The pages' one script. Everything works without it; it adds what needs it: copy buttons on the
// key and on every example, examples that name the origin the page was served from, and on GET /
// the registration form posting as JSON and showing the new key in place, where the eye is.
'use strict';
(function () {
  var each = function (selector, fn) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), fn);
  };

  // The gateway names an origin in the examples (PUBLIC_URL, or the Host asked); the page's own wins.
  each('.origin', function (span) {
    span.textContent = location.origin;
  });

  // One live region says what a copy button did.
  var status = document.getElementById('copy-status');
  if (!status) {
    status = document.createElement('p');
    status.className = 'visually-hidden';
    status.setAttribute('aria-live', 'polite');
    document.body.appendChild(status);
  }
  function copy(source, what) {
    var text = source.textContent;
    var selectIt = function () {
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () {
        status.textContent = what + ' copied to the clipboard.';
      }, selectIt);
    } else selectIt();
  }
  each('button[data-copy]', function (button) {
    var source = document.getElementById(button.getAttribute('data-copy'));
    button.hidden = false;
    button.addEventListener('click', function () {
      copy(source, button.textContent.replace(/^Copy /, '').replace(/^./, function (c) { return c.toUpperCase(); }));
    });
  });
  // Every other example gets a button of its own.
  each('pre', function (pre) {
    if (pre.parentNode.className === 'copyable') return;
    var box = document.createElement('div');
    box.className = 'copyable';
    pre.parentNode.insertBefore(box, pre);
    box.appendChild(pre);
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy this example');
    button.addEventListener('click', function () {
      copy(pre, 'Example');
    });
    box.appendChild(button);
  });

  // GET /: the form posts as JSON and the key appears in place of the form. Elsewhere (the page
  // answering a refused form post) the form posts as it is.
  var form = document.getElementById('register-form');
  var result = document.getElementById('result');
  if (!form || !result) return;
  var input = document.getElementById('email');
  var error = document.getElementById('email-error');
  var button = form.querySelector('button[type=submit]');
  var keyField = document.getElementById('api-key');
  var curl = document.getElementById('curl-line');

  function fail(message) {
    error.textContent = message;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    error.textContent = '';
    input.removeAttribute('aria-invalid');
    button.disabled = true;
    fetch(form.dataset.api, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: input.value }),
    })
      .then(function (res) {
        return res.json().then(
          function (body) { return { status: res.status, body: body }; },
          function () { return { status: res.status, body: null }; }
        );
      })
      .then(function (r) {
        if (r.status === 201 && r.body && r.body.api_key) {
          keyField.textContent = r.body.api_key;
          var header = form.dataset.keyHeader + ': ' + r.body.api_key;
          curl.textContent = "curl -H '" + header + "' '" + location.origin + form.dataset.example + "'";
          status.textContent = '';
          form.hidden = true;
          result.hidden = false;
          result.scrollIntoView({ block: 'start' });
          document.getElementById('result-title').focus({ preventScroll: true });
        } else {
          fail((r.body && r.body.error) || 'Registration failed (status ' + r.status + '). Please try again.');
        }
      })
      .catch(function () {
        fail('The service could not be reached. Check your connection and try again.');
      })
      .finally(function () {
        button.disabled = false;
      });
  });
})();
