import { useEffect, useRef, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { Dialog, DialogContent } from './ui/dialog';

/** "g" then a letter: the page it goes to. */
const GO_TO: Record<string, { to: string; label: string }> = {
  j: { to: '/jobs', label: 'Jobs' },
  l: { to: '/leads', label: 'Leads' },
  w: { to: '/watches', label: 'Watches' },
  c: { to: '/content', label: 'Content' },
};
/** How long after "g" the second key counts. */
const SEQUENCE_MS = 1500;

/** The shortcuts as the help dialog lists them: the keys, and what they do. */
export const SHORTCUTS: { keys: string[]; does: string }[] = [
  ...Object.entries(GO_TO).map(([key, { label }]) => ({ keys: ['g', key], does: `Go to ${label}` })),
  { keys: ['/'], does: 'Search: the command palette' },
  { keys: ['Ctrl', 'K'], does: 'The command palette (⌘ K on a Mac), also while typing' },
  { keys: ['?'], does: 'This list of shortcuts' },
  { keys: ['Esc'], does: 'Close a dialog' },
];

/** Typing in a field (or an editor) is typing: no single-key shortcut fires there. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(type);
}

/**
 * The console's keyboard shortcuts: "g" then j, l, w or c goes to a page, "/" and Ctrl/Cmd-K open the command
 * palette, "?" lists them all. Single keys never fire while the user types in a field or an open dialog has focus.
 */
export function Shortcuts({ onOpenPalette }: { onOpenPalette: () => void }) {
  const navigate = useNavigate();
  const [helpOpen, setHelpOpen] = useState(false);
  const pendingG = useRef(0);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        onOpenPalette();
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      // Inside an open dialog (the palette, an editor's form) its own keys rule.
      if (event.target instanceof Element && event.target.closest('[role="dialog"],[role="alertdialog"]')) return;
      const now = Date.now();
      if (pendingG.current && now - pendingG.current < SEQUENCE_MS && GO_TO[event.key]) {
        pendingG.current = 0;
        event.preventDefault();
        void navigate({ to: GO_TO[event.key].to });
        return;
      }
      pendingG.current = event.key === 'g' ? now : 0;
      if (event.key === '/') {
        event.preventDefault();
        onOpenPalette();
      } else if (event.key === '?') {
        event.preventDefault();
        setHelpOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate, onOpenPalette]);

  return (
    <Dialog open={helpOpen} onOpenChange={setHelpOpen}>
      <DialogContent title="Keyboard shortcuts" description="They do not fire while you type in a field.">
        <table className="w-full text-sm">
          <caption className="sr-only">Keyboard shortcuts</caption>
          <thead>
            <tr className="text-left text-muted-foreground">
              <th scope="col" className="pb-2 font-medium">
                Keys
              </th>
              <th scope="col" className="pb-2 font-medium">
                Does
              </th>
            </tr>
          </thead>
          <tbody>
            {SHORTCUTS.map(({ keys, does }) => (
              <tr key={keys.join(' ')} className="border-t border-border">
                <td className="py-2 pr-4">
                  <span className="flex gap-1">
                    {keys.map((key, i) => (
                      <kbd key={i} className="rounded border border-border bg-muted px-1.5 py-0.5 font-mono text-xs">
                        {key}
                      </kbd>
                    ))}
                  </span>
                </td>
                <td className="py-2">{does}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </DialogContent>
    </Dialog>
  );
}
