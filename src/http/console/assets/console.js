// Console enhancements; every page works without them. Confirm before destructive forms, copy buttons,
// and reading a chosen CSV file into the upload form's text field (with progress).
(() => {
  document.addEventListener('submit', (e) => {
    var form = e.target;
    var question = form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) e.preventDefault();
  });
  document.querySelectorAll('[data-copy]').forEach((button) => {
    button.hidden = false;
    button.addEventListener('click', () => {
      var source = document.getElementById(button.getAttribute('data-copy'));
      if (!source) return;
      var text = source.value || source.textContent;
      var done = () => {
        button.textContent = button.getAttribute('data-copied') || 'Copied';
      };
      if (navigator.clipboard?.writeText) {
        navigator.clipboard.writeText(text).then(done, () => {
          source.select?.();
        });
      } else if (source.select) {
        source.select();
        document.execCommand('copy');
        done();
      }
    });
  });
  document.querySelectorAll('input[type=file][data-into]').forEach((input) => {
    input.addEventListener('change', () => {
      var target = document.getElementById(input.getAttribute('data-into'));
      var progress = document.getElementById(input.getAttribute('data-progress'));
      var file = input.files?.[0];
      if (!file || !target) return;
      var reader = new FileReader();
      if (progress) {
        progress.hidden = false;
        progress.value = 0;
      }
      reader.onprogress = (ev) => {
        if (progress && ev.lengthComputable) progress.value = ev.loaded / ev.total;
      };
      reader.onload = () => {
        target.value = String(reader.result);
        if (progress) progress.value = 1;
      };
      reader.readAsText(file);
    });
  });
  document.querySelectorAll('form[data-progress-on-submit]').forEach((form) => {
    form.addEventListener('submit', () => {
      var p = document.getElementById(form.getAttribute('data-progress-on-submit'));
      if (p) {
        p.hidden = false;
        p.removeAttribute('value');
      }
    });
  });
})();
