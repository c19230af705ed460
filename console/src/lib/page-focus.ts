/**
 * Whether this is the first page drawn since the document loaded: that one keeps the browser's own start of focus
 * (the skip link first), and every later page change moves the focus to the new page (components/app-shell.tsx).
 * Any page that draws first (sign-in too) takes the document's first draw.
 */
let documentJustLoaded = true;

export function takeFirstDraw(): boolean {
  const first = documentJustLoaded;
  documentJustLoaded = false;
  return first;
}
