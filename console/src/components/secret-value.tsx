import { Copy } from 'lucide-react';
import { toast } from 'sonner';
import { Button } from './ui/button';

/** A secret shown in full with a copy button: it lives in the component's state only, never in a cache. */
export function SecretValue({ label, value }: { label: string; value: string }) {
  const id = `secret-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div className="flex flex-col gap-1">
      <span id={id} className="text-sm font-medium">
        {label}
      </span>
      <div className="flex items-start gap-2">
        <code
          aria-labelledby={id}
          className="min-w-0 flex-1 break-all rounded-md bg-muted px-2 py-1.5 font-mono text-xs"
          data-secret={label}
        >
          {value}
        </code>
        <Button
          variant="outline"
          size="icon"
          aria-label={`Copy ${label}`}
          onClick={() =>
            void navigator.clipboard.writeText(value).then(
              () => toast.success(`${label} copied`),
              () => toast.error('The browser refused to copy; select the text and copy it yourself'),
            )
          }
        >
          <Copy />
        </Button>
      </div>
    </div>
  );
}
