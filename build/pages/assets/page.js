// The registration form of GET /: posts the address to /api/register and shows the new key once.
// Errors from the API are shown in its own words next to the field.
'use strict';
(function () {
  var form = document.getElementById('register-form');
  var input = document.getElementById('email');
  var error = document.getElementById('email-error');
  var button = form.querySelector('button[type=submit]');
  var result = document.getElementById('result');
  var keyField = document.getElementById('api-key');
  var curl = document.getElementById('curl-line');
  var copy = document.getElementById('copy');
  var copyStatus = document.getElementById('copy-status');

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
    fetch('/api/register', {
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
          keyField.value = r.body.api_key;
          curl.textContent = "curl -H 'X-API-Key: " + r.body.api_key + "' " + location.origin + '/api/grains';
          copyStatus.textContent = '';
          result.hidden = false;
          document.getElementById('result-title').focus();
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

  copy.addEventListener('click', function () {
    var done = function () { copyStatus.textContent = 'Copied to the clipboard.'; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(keyField.value).then(done, function () {
        keyField.select();
        copyStatus.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
      });
    } else {
      keyField.select();
      copyStatus.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
    }
  });
})();
