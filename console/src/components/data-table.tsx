import { useEffect, useRef, type ReactNode } from 'react';
import {
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
  type OnChangeFn,
  type RowSelectionState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Checkbox } from './ui/checkbox';
import { Empty, ErrorState, Loading } from './states';
import { cn } from '@/lib/utils';

/** How near the last loaded row the drawn rows come before `onEndReached` asks for more. */
const END_MARGIN_ROWS = 20;

export interface DataTableProps<T> {
  /** What the table lists, for its accessible name ("Jobs"). */
  label: string;
  columns: ColumnDef<T, any>[];
  data: T[];
  getRowId: (row: T) => string;
  isLoading?: boolean;
  error?: unknown;
  retry?: () => void;
  empty?: ReactNode;
  /** Rows selectable with a checkbox each (where the API has a bulk operation). */
  selection?: { state: RowSelectionState; onChange: OnChangeFn<RowSelectionState> };
  onRowClick?: (row: T) => void;
  /** Height of the scrolling body; only the rows in view (and a few around) are in the DOM. */
  height?: string;
  rowHeight?: number;
  /** Below the rows: paging or "load more". */
  footer?: ReactNode;
  /** Called when the last rows come into view (infinite scroll: load the next page of a cursor). */
  onEndReached?: () => void;
}

/**
 * Every list of the console: TanStack Table for columns and selection, TanStack Virtual for the rows, so a table of
 * 20,000 rows keeps a bounded number in the DOM. A real <table> (spacer rows above and below the window) so screen
 * readers announce rows and columns; aria-rowcount tells the whole count.
 */
export function DataTable<T>({
  label,
  columns,
  data,
  getRowId,
  isLoading,
  error,
  retry,
  empty,
  selection,
  onRowClick,
  height = 'min(70vh, 48rem)',
  rowHeight = 44,
  footer,
  onEndReached,
}: DataTableProps<T>) {
  const selectColumn: ColumnDef<T, unknown> = {
    id: 'select',
    header: ({ table }) => (
      <Checkbox
        aria-label="Select all rows"
        checked={table.getIsAllRowsSelected() ? true : table.getIsSomeRowsSelected() ? 'indeterminate' : false}
        onCheckedChange={(v) => table.toggleAllRowsSelected(v === true)}
      />
    ),
    cell: ({ row }) => (
      <Checkbox
        aria-label={`Select row ${row.index + 1}`}
        checked={row.getIsSelected()}
        onCheckedChange={(v) => row.toggleSelected(v === true)}
        onClick={(e) => e.stopPropagation()}
      />
    ),
    size: 40,
  };
  const table = useReactTable({
    data,
    columns: selection ? [selectColumn, ...columns] : columns,
    getRowId,
    getCoreRowModel: getCoreRowModel(),
    enableRowSelection: Boolean(selection),
    state: selection ? { rowSelection: selection.state } : {},
    onRowSelectionChange: selection?.onChange,
  });
  const scroller = useRef<HTMLDivElement>(null);
  const rows = table.getRowModel().rows;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const before = items.length ? items[0].start : 0;
  const after = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const width = table.getVisibleLeafColumns().length;
  const lastInView = items.length ? items[items.length - 1].index : -1;
  // More is asked for while the rows drawn come within a screenful of the last one loaded, and again after each load
  // that leaves them there, so a fast scroll to the end keeps loading instead of waiting for one more scroll event.
  useEffect(() => {
    if (onEndReached && rows.length && lastInView >= rows.length - 1 - END_MARGIN_ROWS) onEndReached();
  }, [onEndReached, lastInView, rows.length]);

  if (error) return <ErrorState error={error} retry={retry} />;
  return (
    <div className="rounded-md border border-border">
      <div
        ref={scroller}
        className="overflow-auto"
        style={{ maxHeight: height }}
        tabIndex={0}
        role="region"
        aria-label={`${label} (scrollable)`}
      >
        <table className="w-full border-collapse text-sm" aria-label={label} aria-rowcount={rows.length + 1}>
          <thead className="sticky top-0 z-10 bg-muted">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => (
                  <th key={header.id} scope="col" className="px-3 py-2 text-left font-medium text-muted-foreground">
                    {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody>
            {before > 0 && (
              <tr aria-hidden>
                <td colSpan={width} style={{ height: before }} />
              </tr>
            )}
            {items.map((item) => {
              const row = rows[item.index];
              return (
                <tr
                  key={row.id}
                  data-row-id={row.id}
                  aria-rowindex={item.index + 2}
                  aria-selected={selection ? row.getIsSelected() : undefined}
                  className={cn(
                    'border-t border-border',
                    onRowClick && 'cursor-pointer hover:bg-muted/60',
                    row.getIsSelected() && 'bg-accent/50',
                  )}
                  style={{ height: rowHeight }}
                  onClick={onRowClick ? () => onRowClick(row.original) : undefined}
                >
                  {row.getVisibleCells().map((cell) => (
                    <td key={cell.id} className="px-3 py-2 align-middle">
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  ))}
                </tr>
              );
            })}
            {after > 0 && (
              <tr aria-hidden>
                <td colSpan={width} style={{ height: after }} />
              </tr>
            )}
          </tbody>
        </table>
        {isLoading && !rows.length && <Loading />}
        {!isLoading && !rows.length && (empty ?? <Empty title={`No ${label.toLowerCase()} yet`} />)}
      </div>
      {footer && (
        <div className="flex flex-wrap items-center justify-between gap-2 border-t border-border p-2">{footer}</div>
      )}
    </div>
  );
}
