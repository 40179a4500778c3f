/**
 * The panel's styles, inside its shadow root: the page's rules cannot reach in, these cannot
 * leak out, and `all: initial` stops the page's inherited styles (font, colour) at the host.
 */
export const PANEL_STYLES = `
:host{all:initial;position:fixed;right:12px;bottom:12px;z-index:2147483647;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#e8eaed}
[hidden]{display:none!important}
.panel{box-sizing:border-box;width:min(760px,calc(100vw - 24px));max-height:min(70vh,640px);overflow:auto;background:#1f2329;border:1px solid #3c4350;border-radius:8px;box-shadow:0 8px 24px rgba(0,0,0,.35)}
header{display:flex;gap:8px;align-items:center;padding:8px 10px;border-bottom:1px solid #3c4350;position:sticky;top:0;background:#1f2329}
header strong{font-size:13px}
.summary{flex:1;color:#aab2bf}
button{font:inherit;color:inherit;background:#2d333d;border:1px solid #4a5262;border-radius:4px;padding:2px 8px;cursor:pointer}
button:hover{background:#3a414d}
input{font:inherit;color:inherit;background:#15181d;border:1px solid #4a5262;border-radius:4px;padding:2px 6px;min-width:0}
input[aria-invalid=true]{border-color:#f28b82}
section{padding:8px 10px;border-bottom:1px solid #3c4350}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0}
dt{color:#aab2bf}
dd{margin:0;word-break:break-all}
ol{margin:6px 0 0;padding-left:18px;color:#f28b82}
.tools{display:flex;gap:8px;padding:8px 10px}
.tools input{flex:1}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:3px 6px;border-bottom:1px solid #2d333d;vertical-align:top}
th{color:#aab2bf;font-weight:normal}
td{max-width:150px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
td:first-child{white-space:normal;word-break:break-all}
tr.overridden td{background:#3b3220}
tr.overridden [data-role=reason]{color:#fdd663;font-weight:bold}
.badge{display:inline-block;white-space:nowrap;margin-left:4px;padding:0 4px;border-radius:3px;background:#4a5262;color:#e8eaed;font-size:10px}
td.edit{max-width:none;overflow:visible}
td.edit input{width:80px}
td.edit button{margin-left:4px;padding:2px 4px}
.error{display:block;white-space:normal;color:#f28b82}
.note{margin:0;padding:8px 10px;color:#aab2bf}
`;
