/**
 * A scrolling list that renders only the rows on screen (and a margin around them), so 10,000
 * rows cost what 20 do. Rows may be of any height and change height (a card whose editor
 * opens): each rendered row is measured, rows never rendered count as the average measured.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type MutableRefObject, type ReactNode, type RefObject } from 'react';

export interface WindowedListProps<T> {
  items: readonly T[];
  itemKey(item: T): string;
  renderItem(item: T): ReactNode;
  /** A row's height before any row was measured, in pixels. */
  estimatedHeight: number;
  /** What the list is, for assistive technology. */
  label: string;
  testId: string;
  /** Scrolls back to the top whenever it changes (a new search). */
  resetKey?: string;
}

/** Pixels rendered above and below the visible part: a short scroll or a Tab shows rows already there. */
const OVERSCAN_PX = 600;

/** Lists this short are rendered whole: a few dozen rows cost little, and the browser's find then sees them all. */
export const RENDERED_WHOLE = 30;

/** Row offsets: `tops[i]` is where row i starts, `tops[n]` the total height. */
export function rowTops(keys: readonly string[], heights: ReadonlyMap<string, number>, estimate: number): Float64Array {
  const tops = new Float64Array(keys.length + 1);
  for (let i = 0; i < keys.length; i++) tops[i + 1] = tops[i]! + (heights.get(keys[i]!) ?? estimate);
  return tops;
}

/** The first row whose bottom is below `y` (binary search over `tops`). */
export function rowAt(tops: Float64Array, y: number): number {
  let low = 0;
  let high = tops.length - 2;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (tops[middle + 1]! <= y) low = middle + 1;
    else high = middle;
  }
  return Math.max(0, low);
}

/** Measures each rendered row: heights by key, and a bump of `version` when one changed. */
function useRowHeights(scroller: RefObject<HTMLDivElement | null>, keys: readonly string[], tops: MutableRefObject<Float64Array>) {
  const heights = useRef(new Map<string, number>());
  const [version, setVersion] = useState(0);
  const current = useRef(keys);
  current.current = keys;
  const observer = useMemo(
    () =>
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver((entries) => {
            let shift = 0;
            let changed = false;
            for (const entry of entries) {
              const key = (entry.target as HTMLElement).dataset.rowKey!;
              const height = entry.borderBoxSize[0]?.blockSize ?? (entry.target as HTMLElement).offsetHeight;
              const before = heights.current.get(key);
              if (height <= 0 || before === height) continue;
              heights.current.set(key, height);
              changed = true;
              // A row above the top of the view changing height would move what is being read.
              const index = current.current.indexOf(key);
              const top = scroller.current?.scrollTop ?? 0;
              if (index !== -1 && tops.current[index]! < top) shift += height - (before ?? tops.current[index + 1]! - tops.current[index]!);
            }
            if (shift && scroller.current) scroller.current.scrollTop += shift;
            if (changed) setVersion((n) => n + 1);
          }),
    [scroller, tops],
  );
  useEffect(() => () => observer?.disconnect(), [observer]);
  return { heights: heights.current, version, observer };
}

function Row({ rowKey, top, position, size, observer, children }: { rowKey: string; top: number; position: number; size: number; observer: ResizeObserver | null; children: ReactNode }) {
  const element = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const row = element.current;
    if (!row || !observer) return;
    observer.observe(row);
    return () => observer.unobserve(row);
  }, [observer]);
  return (
    <div ref={element} className="window-row" role="listitem" aria-posinset={position} aria-setsize={size} data-row-key={rowKey} style={{ transform: `translateY(${top}px)` }}>
      {children}
    </div>
  );
}

export function WindowedList<T>({ items, itemKey, renderItem, estimatedHeight, label, testId, resetKey }: WindowedListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  /** The row holding keyboard focus stays rendered, wherever the list is scrolled. */
  const [focused, setFocused] = useState<string | null>(null);
  const keys = useMemo(() => items.map(itemKey), [items, itemKey]);
  const topsRef = useRef<Float64Array>(new Float64Array(1));
  const { heights, version, observer } = useRowHeights(scroller, keys, topsRef);

  const average = heights.size ? [...heights.values()].reduce((a, b) => a + b, 0) / heights.size : estimatedHeight;
  // `version` changes with every new height: the offsets are computed again.
  const tops = useMemo(() => rowTops(keys, heights, average), [keys, heights, average, version]);
  topsRef.current = tops;

  const onScroll = useCallback(() => {
    const element = scroller.current;
    if (element) setView((previous) => (previous.top === element.scrollTop && previous.height === element.clientHeight ? previous : { top: element.scrollTop, height: element.clientHeight }));
  }, []);
  useLayoutEffect(onScroll, [onScroll, version, keys]);
  useEffect(() => {
    addEventListener('resize', onScroll);
    return () => removeEventListener('resize', onScroll);
  }, [onScroll]);
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [resetKey]);

  const whole = keys.length <= RENDERED_WHOLE;
  const first = whole ? 0 : rowAt(tops, view.top - OVERSCAN_PX);
  const last = whole ? keys.length - 1 : Math.min(keys.length - 1, rowAt(tops, view.top + view.height + OVERSCAN_PX));
  const shown: number[] = [];
  const focusedIndex = focused === null ? -1 : keys.indexOf(focused);
  if (focusedIndex !== -1 && focusedIndex < first) shown.push(focusedIndex);
  for (let i = first; i <= last; i++) shown.push(i);
  if (focusedIndex > last) shown.push(focusedIndex);

  return (
    <div
      ref={scroller}
      className="window"
      role="list"
      aria-label={label}
      data-testid={testId}
      tabIndex={0}
      onScroll={onScroll}
      onFocus={(event) => setFocused((event.target as HTMLElement).closest<HTMLElement>('[data-row-key]')?.dataset.rowKey ?? null)}
    >
      <div className="window-inner" style={{ height: tops[keys.length] }}>
        {shown.map((index) => (
          <Row key={keys[index]} rowKey={keys[index]!} top={tops[index]!} position={index + 1} size={keys.length} observer={observer}>
            {renderItem(items[index]!)}
          </Row>
        ))}
      </div>
    </div>
  );
}
