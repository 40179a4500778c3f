/** An element with `attributes` (a `data-role`, a class) and, as its children, `children` (text or elements). */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Sets a node's text only when it changed, so a re-render does not disturb a selection. */
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** A JSON value as the panel shows it (`undefined`, which JSON lacks, as a dash). */
export const shown = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value));
