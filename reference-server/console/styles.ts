/** The console's CSS, injected from the bundle: one file to serve, nothing from a CDN. */
const CSS = `
:root { color-scheme: light; --fg: #1d2330; --muted: #667085; --line: #e3e6ec; --bg: #f6f7f9; --card: #fff;
  --accent: #2856d8; --on: #17803d; --on-bg: #e5f5ea; --off: #b42318; --off-bg: #fdecea; --warn: #8a5a00; --warn-bg: #fff4d6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
code, pre, textarea, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
h1 { font-size: 17px; margin: 0; }
h2 { font-size: 15px; margin: 0; }
h3 { font-size: 13px; margin: 12px 0 6px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
button, select, input, textarea { font: inherit; color: inherit; }
button { border: 1px solid var(--line); background: #fff; border-radius: 6px; padding: 3px 10px; cursor: pointer; }
button:hover:not(:disabled) { border-color: #b9c0cc; }
button:disabled { opacity: .6; cursor: default; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { background: var(--off); border-color: var(--off); color: #fff; }
button.link { border: 0; background: none; padding: 0; color: var(--accent); font-weight: 600; }
select, input { border: 1px solid var(--line); border-radius: 6px; padding: 3px 6px; background: #fff; }
textarea { width: 100%; border: 1px solid var(--line); border-radius: 6px; padding: 6px; background: #fbfbfc; }
textarea[aria-invalid] { border-color: var(--off); }
.console { max-width: 1600px; margin: 0 auto; padding: 0 16px 32px; }
.top { display: flex; align-items: center; gap: 12px; padding: 12px 0; }
.columns { display: grid; grid-template-columns: minmax(0, 1.25fr) minmax(0, 1fr); gap: 16px; align-items: start; }
@media (max-width: 960px) { .columns { grid-template-columns: 1fr; } }
.column { display: flex; flex-direction: column; gap: 16px; min-width: 0; }
.pane { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.pane-head { display: flex; align-items: center; gap: 8px; justify-content: space-between; margin-bottom: 8px; }
.prompt pre { background: var(--bg); padding: 8px; border-radius: 6px; overflow-x: auto; }
.row { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.spacer { flex: 1; }
.muted { color: var(--muted); }
.small { font-size: 12px; }
.right { text-align: right; }
.note { background: var(--on-bg); color: var(--on); border-radius: 6px; padding: 4px 8px; margin: 0 0 8px; }
.error { background: var(--off-bg); color: var(--off); border-radius: 6px; padding: 4px 8px; margin: 6px 0; }
.error-path { font-weight: 600; margin-right: 6px; }
.error-code { opacity: .75; }
.badge { display: inline-block; border-radius: 999px; padding: 0 7px; font-size: 11.5px; line-height: 18px; background: #eef0f4; color: #475467; margin-left: 4px; white-space: nowrap; }
.badge-on { background: var(--on-bg); color: var(--on); }
.badge-off { background: var(--off-bg); color: var(--off); }
.badge-warn { background: var(--warn-bg); color: var(--warn); }
.live { color: var(--on); font-weight: 600; }
.live::before { content: "●"; margin-right: 4px; }
.live-failing { color: var(--off); }
.live-waiting { color: var(--muted); }
.search { margin-bottom: 8px; }
.search input { flex: 1; min-width: 12em; }
.window { max-height: 75vh; overflow-y: auto; overflow-anchor: none; position: relative; border-radius: 8px; }
.window:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.window-inner { position: relative; }
.window-row { position: absolute; top: 0; left: 0; right: 0; padding-bottom: 10px; }
.flag { border: 1px solid var(--line); border-left: 4px solid var(--off); border-radius: 8px; padding: 8px 10px; }
.flag-on { border-left-color: var(--on); }
.flag-head { display: flex; align-items: center; gap: 4px; }
.flag-head h3 { margin: 0 6px 0 0; color: var(--fg); text-transform: none; letter-spacing: 0; font-size: 14px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.switch { min-width: 58px; font-weight: 700; background: var(--off-bg); color: var(--off); border-color: transparent; }
.switch-on { background: var(--on-bg); color: var(--on); }
.serves { margin: 4px 0; color: var(--muted); }
.variations { list-style: none; margin: 4px 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 6px; }
.variations li { border: 1px solid var(--line); border-radius: 6px; padding: 1px 6px; background: #fbfbfc; }
.variations li.served { border-color: #9fd3b0; background: var(--on-bg); }
.variations li.served code { font-weight: 700; }
.variations .index { color: var(--muted); font-size: 11.5px; margin-right: 5px; }
.variation-key { font-weight: 600; margin-right: 5px; }
.metadata { margin: 4px 0; display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
.variations-editor, .rule-form { display: flex; flex-direction: column; gap: 4px; margin: 8px 0; }
.variations-editor .grow { flex: 1; }
.controls { display: flex; gap: 16px; flex-wrap: wrap; margin: 6px 0; }
.control, .control > label { display: flex; flex-direction: column; gap: 2px; }
.control.grow { flex: 1; }
.label { font-size: 11.5px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.rollout { display: flex; flex-direction: column; gap: 4px; margin-top: 6px; }
.weight input { width: 90px; margin-right: 4px; }
.sum { font-weight: 600; color: var(--on); }
.sum-off { color: var(--off); }
.rules ol { margin: 2px 0; padding-left: 22px; }
.rules p { margin: 2px 0; }
.json-editor { margin: 8px 0; }
.flag footer { margin-top: 6px; }
.new-flag { border: 1px dashed var(--line); border-radius: 8px; padding: 8px 10px; margin-bottom: 10px; }
.table { width: 100%; border-collapse: collapse; }
.table th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12px; }
.table td, .table th { padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
.table tr.selected td { background: #f0f4ff; }
.table tr.revoked code { text-decoration: line-through; color: var(--muted); }
.events { list-style: none; margin: 0; padding: 0; max-height: 190px; overflow-y: auto; }
.events li { padding: 2px 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.events time { color: var(--muted); font-size: 12px; margin-right: 4px; }
.errors { list-style: none; padding: 0; margin: 6px 0; }
.context { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-start; }
.context .row { flex-basis: 100%; }
.context .error { flex-basis: 100%; }
.status-line { margin: 0 0 8px; color: var(--muted); }
.live-flags { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 6px; }
.live-flag { border: 1px solid var(--line); border-radius: 8px; padding: 4px 8px; display: flex; flex-direction: column; }
.live-true { background: var(--on-bg); }
.live-false { background: #f7f7f8; }
.live-key { font-size: 12px; color: var(--muted); }
.renders { font-size: 11.5px; color: var(--muted); }
`;

/** A flag on a pole, inline: no /favicon.ico request (a 404, logged as an error by browsers). */
const ICON =
  "data:image/svg+xml," +
  encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M3 1v14" stroke="#1d2330" stroke-width="2"/><path d="M4 2h9l-2 3 2 3H4z" fill="#17803d"/></svg>');

/** Adds the stylesheet and the icon to the document once. */
export function injectStyles(): void {
  if (document.getElementById('flagplane-console-css')) return;
  const style = document.createElement('style');
  style.id = 'flagplane-console-css';
  style.textContent = CSS;
  const icon = document.createElement('link');
  icon.rel = 'icon';
  icon.href = ICON;
  document.head.append(style, icon);
}
