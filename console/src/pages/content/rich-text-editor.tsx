import { useEffect, useRef, useState, type ComponentType, type KeyboardEvent, type ReactNode } from 'react';
import { EditorContent, useEditor, useEditorState, type Editor, type JSONContent } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import Image from '@tiptap/extension-image';
import {
  Bold,
  Code,
  Heading2,
  Heading3,
  ImagePlus,
  Italic,
  Link2,
  List,
  ListOrdered,
  Minus,
  Quote,
  Redo2,
  SquareCode,
  Strikethrough,
  Underline,
  Undo2,
} from 'lucide-react';
import { toast } from 'sonner';
import { describeError } from '@/api/errors';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { cn } from '@/lib/utils';
import { uploadContentImage } from './image-upload';
import { PROSE } from './shared';

/** The post body as the content API stores it: a ProseMirror document (RichTextNode) whose root type is `doc`. */
export type RichTextDoc = JSONContent & { type: 'doc'; content: JSONContent[] };

export const EMPTY_DOC: RichTextDoc = { type: 'doc', content: [{ type: 'paragraph' }] };

/**
 * The editor's extensions are exactly what the public renderer (src/content/render-html.ts) draws: paragraph,
 * heading (h2, h3: the title is the page's h1), bullet and ordered lists, blockquote, code block, horizontal rule,
 * hard break and image nodes; bold, italic, underline, strike, code and link marks. StarterKit's other parts (the
 * trailing node, undo, the drop and gap cursors) only help editing and write nothing of their own. Links and
 * images take only the schemes the renderer keeps (http, https, mailto, tel; images http and https).
 */
const extensions = [
  StarterKit.configure({
    heading: { levels: [2, 3] },
    link: {
      openOnClick: false,
      autolink: true,
      protocols: ['mailto', 'tel'],
      isAllowedUri: (url, ctx) => /^(?:https?:|mailto:|tel:|\/|#)/i.test(url) && ctx.defaultValidate(url),
      HTMLAttributes: { rel: 'noopener noreferrer nofollow', target: null },
    },
  }),
  Image.configure({ allowBase64: false }),
];

type Mark = 'bold' | 'italic' | 'underline' | 'strike' | 'code';

interface ToolProps {
  label: string;
  shortcut?: string;
  icon: ComponentType<{ className?: string }>;
  pressed?: boolean;
  disabled?: boolean;
  onPress: () => void;
}

/** A toolbar button: its state is aria-pressed, its name says what it does and its shortcut. */
function Tool({ label, shortcut, icon: Icon, pressed, disabled, onPress }: ToolProps) {
  return (
    <Button
      variant="ghost"
      size="icon"
      className={cn('h-8 w-8', pressed && 'bg-accent text-accent-foreground')}
      aria-label={label}
      aria-keyshortcuts={shortcut}
      title={shortcut ? `${label} (${shortcut.replace('Control', 'Ctrl')})` : label}
      aria-pressed={pressed === undefined ? undefined : pressed}
      disabled={disabled}
      // Keeps the selection in the editor while the button is clicked.
      onMouseDown={(e) => e.preventDefault()}
      onClick={onPress}
    >
      <Icon />
    </Button>
  );
}

/** A URL asked for in the toolbar itself (a link's address, an image's source); Enter applies, Escape cancels. */
function UrlField({
  label,
  initial,
  onApply,
  onCancel,
  children,
}: {
  label: string;
  initial: string;
  onApply: (url: string) => void;
  onCancel: () => void;
  /** More ways to give the address (an image's upload). */
  children?: ReactNode;
}) {
  const [value, setValue] = useState(initial);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      onApply(value.trim());
    } else if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    }
  };
  return (
    <div className="flex w-full flex-wrap items-center gap-2 border-t border-border p-2">
      <label htmlFor="rte-url" className="text-sm font-medium">
        {label}
      </label>
      <Input
        id="rte-url"
        ref={ref}
        type="url"
        value={value}
        placeholder="https://"
        className="h-8 min-w-0 flex-1"
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={keys}
      />
      <Button size="sm" onClick={() => onApply(value.trim())}>
        Apply
      </Button>
      <Button size="sm" variant="outline" onClick={onCancel}>
        Cancel
      </Button>
      {children}
    </div>
  );
}

function Toolbar({ editor, onUrl }: { editor: Editor; onUrl: (kind: 'link' | 'image') => void }) {
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      underline: e.isActive('underline'),
      strike: e.isActive('strike'),
      code: e.isActive('code'),
      h2: e.isActive('heading', { level: 2 }),
      h3: e.isActive('heading', { level: 3 }),
      bullet: e.isActive('bulletList'),
      ordered: e.isActive('orderedList'),
      quote: e.isActive('blockquote'),
      codeBlock: e.isActive('codeBlock'),
      link: e.isActive('link'),
      canUndo: e.can().undo(),
      canRedo: e.can().redo(),
    }),
  });
  const chain = () => editor.chain().focus();
  const mark = (m: Mark) => () => chain().toggleMark(m).run();
  // One Tab stop for the whole toolbar (the WAI-ARIA toolbar pattern): arrow keys, Home and End move between its
  // buttons, and Tab goes on to the editor.
  const bar = useRef<HTMLDivElement>(null);
  const [current, setCurrent] = useState(0);
  const buttons = () => [...(bar.current?.querySelectorAll<HTMLButtonElement>('button:not(:disabled)') ?? [])];
  useEffect(() => {
    buttons().forEach((b, i) => (b.tabIndex = i === current ? 0 : -1));
  });
  const rove = (e: KeyboardEvent<HTMLDivElement>) => {
    const all = buttons();
    const at = all.findIndex((b) => b === document.activeElement);
    const to =
      e.key === 'ArrowRight'
        ? at + 1
        : e.key === 'ArrowLeft'
          ? at - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? -1
              : null;
    if (to === null || at < 0) return;
    e.preventDefault();
    const next = (to + all.length) % all.length;
    setCurrent(next);
    all[next].focus();
  };
  return (
    <div
      ref={bar}
      role="toolbar"
      aria-label="Formatting"
      aria-controls="post-body"
      className="flex flex-wrap gap-0.5 p-1"
      onKeyDown={rove}
      onFocus={(e) => {
        const target: EventTarget = e.target;
        const at = buttons().findIndex((b) => b === target);
        if (at >= 0 && at !== current) setCurrent(at);
      }}
    >
      <Tool label="Bold" shortcut="Control+B" icon={Bold} pressed={state.bold} onPress={mark('bold')} />
      <Tool label="Italic" shortcut="Control+I" icon={Italic} pressed={state.italic} onPress={mark('italic')} />
      <Tool
        label="Underline"
        shortcut="Control+U"
        icon={Underline}
        pressed={state.underline}
        onPress={mark('underline')}
      />
      <Tool
        label="Strikethrough"
        shortcut="Control+Shift+S"
        icon={Strikethrough}
        pressed={state.strike}
        onPress={mark('strike')}
      />
      <Tool label="Inline code" shortcut="Control+E" icon={Code} pressed={state.code} onPress={mark('code')} />
      <Tool label="Link" shortcut="Control+K" icon={Link2} pressed={state.link} onPress={() => onUrl('link')} />
      <span className="mx-1 w-px self-stretch bg-border" aria-hidden />
      <Tool
        label="Heading 2"
        shortcut="Control+Alt+2"
        icon={Heading2}
        pressed={state.h2}
        onPress={() => chain().toggleHeading({ level: 2 }).run()}
      />
      <Tool
        label="Heading 3"
        shortcut="Control+Alt+3"
        icon={Heading3}
        pressed={state.h3}
        onPress={() => chain().toggleHeading({ level: 3 }).run()}
      />
      <Tool
        label="Bulleted list"
        shortcut="Control+Shift+8"
        icon={List}
        pressed={state.bullet}
        onPress={() => chain().toggleBulletList().run()}
      />
      <Tool
        label="Numbered list"
        shortcut="Control+Shift+7"
        icon={ListOrdered}
        pressed={state.ordered}
        onPress={() => chain().toggleOrderedList().run()}
      />
      <Tool
        label="Quote"
        shortcut="Control+Shift+B"
        icon={Quote}
        pressed={state.quote}
        onPress={() => chain().toggleBlockquote().run()}
      />
      <Tool
        label="Code block"
        shortcut="Control+Alt+C"
        icon={SquareCode}
        pressed={state.codeBlock}
        onPress={() => chain().toggleCodeBlock().run()}
      />
      <Tool label="Horizontal rule" icon={Minus} onPress={() => chain().setHorizontalRule().run()} />
      <Tool label="Image" icon={ImagePlus} onPress={() => onUrl('image')} />
      <span className="mx-1 w-px self-stretch bg-border" aria-hidden />
      <Tool
        label="Undo"
        shortcut="Control+Z"
        icon={Undo2}
        disabled={!state.canUndo}
        onPress={() => chain().undo().run()}
      />
      <Tool
        label="Redo"
        shortcut="Control+Shift+Z"
        icon={Redo2}
        disabled={!state.canRedo}
        onPress={() => chain().redo().run()}
      />
    </div>
  );
}

/**
 * The post body's editor (Tiptap): `editor.getJSON()` is the document the content API stores. Ctrl/Cmd-K asks for
 * a link's address; Tab leaves the editor (it is not captured), so the whole form works with the keyboard.
 */
export function RichTextEditor({
  value,
  onChange,
  labelledBy,
}: {
  value: RichTextDoc;
  onChange: (doc: RichTextDoc) => void;
  labelledBy: string;
}) {
  const [asking, setAsking] = useState<'link' | 'image' | null>(null);
  // Escape moves the focus here, just after the editor: the next Tab goes on to the next field.
  const after = useRef<HTMLSpanElement>(null);
  const editor = useEditor({
    extensions,
    content: value,
    immediatelyRender: true,
    editorProps: {
      attributes: {
        id: 'post-body',
        role: 'textbox',
        'aria-multiline': 'true',
        'aria-labelledby': labelledBy,
        class: cn(PROSE, 'min-h-64 px-3 py-2 focus:outline-none'),
      },
      handleKeyDown: (_view, event) => {
        if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
          event.preventDefault();
          setAsking('link');
          return true;
        }
        if (event.key === 'Escape') {
          after.current?.focus();
          return true;
        }
        return false;
      },
    },
    onUpdate: ({ editor: e }) => onChange(e.getJSON() as RichTextDoc),
  });

  const apply = (url: string) => {
    const chain = editor.chain().focus();
    if (asking === 'link') {
      if (!url) chain.extendMarkRange('link').unsetLink().run();
      else chain.extendMarkRange('link').setLink({ href: url }).run();
    } else if (asking === 'image' && /^https?:\/\//i.test(url)) {
      chain.setImage({ src: url }).run();
    }
    setAsking(null);
  };

  /** An image uploaded from this computer goes in at the cursor by its address on this service. */
  const [uploading, setUploading] = useState(false);
  const uploadImage = async (file: File) => {
    setUploading(true);
    try {
      const media = await uploadContentImage(file);
      editor.chain().focus().setImage({ src: media.url }).run();
      setAsking(null);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setUploading(false);
    }
  };

  return (
    <div className="rounded-md border border-input bg-background focus-within:ring-2 focus-within:ring-ring">
      <div className="sticky top-0 z-10 border-b border-border bg-background">
        <Toolbar editor={editor} onUrl={setAsking} />
        {asking && (
          <UrlField
            label={asking === 'link' ? 'Link address' : 'Image address (https)'}
            initial={asking === 'link' ? String(editor.getAttributes('link').href ?? '') : ''}
            onApply={apply}
            onCancel={() => {
              setAsking(null);
              editor.commands.focus();
            }}
          >
            {asking === 'image' && (
              <span className="flex w-full flex-wrap items-center gap-2">
                <label htmlFor="rte-image-upload" className="text-sm font-medium">
                  Or upload an image
                </label>
                <Input
                  id="rte-image-upload"
                  type="file"
                  accept="image/png,image/jpeg,image/webp,image/gif,image/avif"
                  disabled={uploading}
                  className="h-auto min-w-0 flex-1 py-1 file:mr-3 file:rounded file:border-0 file:bg-muted file:px-2 file:py-1 file:text-sm file:text-foreground"
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    if (file) void uploadImage(file);
                  }}
                />
                <span aria-live="polite" className="text-xs text-muted-foreground">
                  {uploading ? 'Uploading…' : ''}
                </span>
              </span>
            )}
          </UrlField>
        )}
      </div>
      <EditorContent editor={editor} />
      <span ref={after} tabIndex={-1} className="sr-only">
        End of the body
      </span>
    </div>
  );
}
