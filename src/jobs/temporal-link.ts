/**
 * A job's run in the Temporal Web UI: `<ui>/namespaces/<namespace>/workflows/<workflow id>` (the job id is its
 * workflow id). A UI URL that names the namespace already (Temporal Cloud's, `https://cloud.temporal.io/namespaces/
 * <namespace>`, as the README configures it) gets only the workflow's part. Null where no UI is known.
 */
export function temporalRunUrl(uiUrl: string | null, namespace: string, workflowId: string): string | null {
  if (!uiUrl) return null;
  const base = uiUrl.endsWith('/') ? uiUrl.slice(0, -1) : uiUrl;
  const ns = encodeURIComponent(namespace);
  const withNamespace = base.endsWith(`/namespaces/${ns}`) ? base : `${base}/namespaces/${ns}`;
  return `${withNamespace}/workflows/${encodeURIComponent(workflowId)}`;
}

/** For an operator (super_admin) only: the job's run in the Temporal Web UI, as the status answers add it. */
export function runLinkFor(
  deps: { temporalUiUrl: string | null; config: { TEMPORAL_NAMESPACE: string } },
  role: string,
  workflowId: string,
): { temporal_run_url?: string } {
  if (role !== 'super_admin') return {};
  const url = temporalRunUrl(deps.temporalUiUrl, deps.config.TEMPORAL_NAMESPACE, workflowId);
  return url ? { temporal_run_url: url } : {};
}
