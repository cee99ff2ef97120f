// Progressive enhancement only: every page works without this script.
// Forms marked data-confirm ask before submitting (destructive actions).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});

// Browsers without ::details-content keep the menu's summary on wide screens (panel.css): open it there.
const menu = document.querySelector("details.menu");
if (
  menu instanceof window.HTMLDetailsElement &&
  !window.CSS.supports("selector(::details-content)") &&
  window.matchMedia("(min-width: 48rem)").matches
) {
  menu.open = true;
}
