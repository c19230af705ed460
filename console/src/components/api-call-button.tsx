import { useEffect, useState } from 'react';
import { Code2, Copy } from 'lucide-react';
import { toast } from 'sonner';
import { Button } from './ui/button';
import { Dialog, DialogContent, DialogTrigger } from './ui/dialog';
import { Tabs, TabsContent, TabsList, TabsTrigger } from './ui/tabs';
import { cliCommand, curlCommand, mcpToolCall, type ApiCall } from '@/lib/api-call';

function CopyBlock({ text, label }: { text: string; label: string }) {
  return (
    <div className="relative">
      <pre className="max-h-72 overflow-auto rounded-md bg-muted p-3 pr-12 text-xs" aria-label={label} tabIndex={0}>
        <code>{text}</code>
      </pre>
      <Button
        variant="ghost"
        size="icon"
        className="absolute right-1 top-1"
        aria-label={`Copy ${label}`}
        onClick={() => void navigator.clipboard.writeText(text).then(() => toast.success(`${label} copied`))}
      >
        <Copy />
      </Button>
    </div>
  );
}

/**
 * "Show the API call" of an action: the same call as curl, as a CLI command and as the MCP tool call, the
 * caller's credential left as a placeholder. The MCP tools' list is loaded only when the dialog opens.
 */
export function ApiCallButton({ call, label = 'API call' }: { call: ApiCall; label?: string }) {
  const [open, setOpen] = useState(false);
  const [mcp, setMcp] = useState<string | null | undefined>(undefined);
  const origin = window.location.origin;
  useEffect(() => {
    if (!open) return;
    let current = true;
    void import('@mcp-tools').then(({ default: tools }) => current && setMcp(mcpToolCall(call, tools)));
    return () => {
      current = false;
    };
  }, [open, call]);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" aria-label={`Show the API call: ${call.operationId}`}>
          <Code2 /> {label}
        </Button>
      </DialogTrigger>
      <DialogContent
        title="The API call"
        description={`${call.method} ${call.path} (${call.operationId}). Your credential is left as $LEAD_SERVICE_TOKEN.`}
        className="max-w-2xl"
      >
        <Tabs defaultValue="curl">
          <TabsList>
            <TabsTrigger value="curl">curl</TabsTrigger>
            <TabsTrigger value="cli">CLI</TabsTrigger>
            <TabsTrigger value="mcp">MCP</TabsTrigger>
          </TabsList>
          <TabsContent value="curl" className="mt-3">
            <CopyBlock label="curl command" text={curlCommand(call, origin)} />
          </TabsContent>
          <TabsContent value="cli" className="mt-3">
            <CopyBlock label="CLI command" text={cliCommand(call, origin)} />
          </TabsContent>
          <TabsContent value="mcp" className="mt-3">
            {mcp === undefined ? (
              <p className="text-sm text-muted-foreground">Loading the MCP tools…</p>
            ) : mcp === null ? (
              <p className="text-sm">
                This operation is not one of the MCP server's tools (it offers what agents do); use curl or the CLI.
              </p>
            ) : (
              <CopyBlock label="MCP tool call" text={mcp} />
            )}
          </TabsContent>
        </Tabs>
      </DialogContent>
    </Dialog>
  );
}
