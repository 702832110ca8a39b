// Console enhancements; every page works without them. Confirm before destructive forms, copy buttons,
// and reading a chosen CSV file into the upload form's text field (with progress).
(function () {
  'use strict';
  document.addEventListener('submit', function (e) {
    var form = e.target;
    var question = form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) e.preventDefault();
  });
  document.querySelectorAll('[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var source = document.getElementById(button.getAttribute('data-copy'));
      if (!source) return;
      var text = source.value || source.textContent;
      var done = function () { button.textContent = button.getAttribute('data-copied') || 'Copied'; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () { source.select && source.select(); });
      } else if (source.select) {
        source.select();
        document.execCommand('copy');
        done();
      }
    });
  });
  document.querySelectorAll('input[type=file][data-into]').forEach(function (input) {
    input.addEventListener('change', function () {
      var target = document.getElementById(input.getAttribute('data-into'));
      var progress = document.getElementById(input.getAttribute('data-progress'));
      var file = input.files && input.files[0];
      if (!file || !target) return;
      var reader = new FileReader();
      if (progress) { progress.hidden = false; progress.value = 0; }
      reader.onprogress = function (ev) { if (progress && ev.lengthComputable) progress.value = ev.loaded / ev.total; };
      reader.onload = function () { target.value = String(reader.result); if (progress) progress.value = 1; };
      reader.readAsText(file);
    });
  });
  document.querySelectorAll('form[data-progress-on-submit]').forEach(function (form) {
    form.addEventListener('submit', function () {
      var p = document.getElementById(form.getAttribute('data-progress-on-submit'));
      if (p) { p.hidden = false; p.removeAttribute('value'); }
    });
  });
})();
