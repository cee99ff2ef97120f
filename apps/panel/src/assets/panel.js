// Progressive enhancement only: every page works without this script.
// Forms marked data-confirm ask before submitting (destructive actions).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});
