import { useId } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type BarShapeProps,
} from 'recharts';
import { formatNumber } from '@/lib/format';
import { Empty } from './states';

export interface ChartSeries<Row> {
  /** The field of each row drawn by this series. */
  key: keyof Row & string;
  label: string;
  /** How a value reads (currency, percent); numbers in the user's locale by default. */
  format?: (value: number) => string;
}

export interface ChartProps<Row> {
  /** The chart's name: its caption, and the accessible name a test or a screen reader finds it by. */
  title: string;
  /** The rows as the API answered them, in the order drawn. */
  data: Row[];
  /** The field that names each row on the horizontal axis (a date, a country). */
  category: keyof Row & string;
  series: ChartSeries<Row>[];
  kind?: 'bar' | 'line';
  /** A row's category as read (a date in the user's locale). */
  formatCategory?: (value: string) => string;
  height?: number;
}

/** Colours of the theme (styles.css), one per series in order: each reaches 3:1 against both backgrounds. */
const SERIES_COLOURS = ['var(--primary)', 'var(--success)', 'var(--warning)', 'var(--destructive)'];

const numberOf = (value: unknown) => (typeof value === 'number' ? value : Number(value ?? 0));

/**
 * A chart of the API's figures (recharts), always beside the same figures as a table, for screen readers and
 * for anyone who wants the numbers. Every drawn mark carries its row, series and value (`data-category`,
 * `data-series`, `data-value`), so a journey can check that what is drawn is what the API answered, and where.
 */
export function Chart<Row extends Record<string, unknown>>({
  title,
  data,
  category,
  series,
  kind = 'bar',
  formatCategory = String,
  height = 220,
}: ChartProps<Row>) {
  const captionId = useId();
  // recharts types a data key by the rows' type; its keys are this chart's own, checked by ChartProps above.
  const rows: Record<string, unknown>[] = data;
  const formatOf = (key: string) => series.find((s) => s.key === key)?.format ?? formatNumber;
  const axis = (
    <>
      <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
      <XAxis
        dataKey={category as string}
        tickFormatter={(v) => formatCategory(String(v))}
        stroke="var(--muted-foreground)"
        fontSize={12}
        minTickGap={16}
      />
      <YAxis stroke="var(--muted-foreground)" fontSize={12} width={56} tickFormatter={(v) => formatNumber(v)} />
      <Tooltip
        labelFormatter={(v) => formatCategory(String(v))}
        formatter={(value, name, item) => [formatOf(String(item.dataKey))(numberOf(value)), name]}
        contentStyle={{ background: 'var(--card)', border: '1px solid var(--border)', color: 'var(--foreground)' }}
      />
    </>
  );
  return (
    <figure aria-labelledby={captionId} className="rounded-lg border border-border p-4" data-chart={title}>
      <figcaption id={captionId} className="mb-2 text-sm font-medium">
        {title}
      </figcaption>
      {data.length === 0 ? (
        <Empty title="No figures for this period" />
      ) : (
        // The drawing is hidden from assistive technology (the figures' table below tells the same) and so must hold
        // nothing focusable: recharts' keyboard layer is off.
        <div aria-hidden className="w-full" style={{ height }}>
          <ResponsiveContainer width="100%" height="100%">
            {kind === 'bar' ? (
              <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
                {axis}
                {series.map((s, i) => (
                  <Bar
                    key={s.key}
                    dataKey={s.key as string}
                    name={s.label}
                    fill={SERIES_COLOURS[i % SERIES_COLOURS.length]}
                    isAnimationActive={false}
                    shape={(props: BarShapeProps) => (
                      <rect
                        x={props.x}
                        y={props.y}
                        width={props.width}
                        height={props.height}
                        fill={SERIES_COLOURS[i % SERIES_COLOURS.length]}
                        data-series={s.key}
                        data-category={String((props.payload as Row)[category])}
                        data-value={numberOf((props.payload as Row)[s.key])}
                      />
                    )}
                  />
                ))}
              </BarChart>
            ) : (
              <LineChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
                {axis}
                {series.map((s, i) => (
                  <Line
                    key={s.key}
                    dataKey={s.key as string}
                    name={s.label}
                    stroke={SERIES_COLOURS[i % SERIES_COLOURS.length]}
                    strokeWidth={2}
                    isAnimationActive={false}
                    dot={(props: { cx?: number; cy?: number; index?: number; payload?: Row }) => (
                      <circle
                        key={`${s.key}-${props.index}`}
                        cx={props.cx}
                        cy={props.cy}
                        r={3}
                        fill={SERIES_COLOURS[i % SERIES_COLOURS.length]}
                        data-series={s.key}
                        data-category={String(props.payload?.[category])}
                        data-value={numberOf(props.payload?.[s.key])}
                      />
                    )}
                  />
                ))}
              </LineChart>
            )}
          </ResponsiveContainer>
        </div>
      )}
      {data.length > 0 && (
        <details className="mt-2 text-sm">
          <summary className="cursor-pointer text-muted-foreground">Figures of “{title}”</summary>
          <div className="max-h-64 overflow-auto" tabIndex={0} role="region" aria-label={`Figures of ${title}`}>
            <table className="w-full text-left">
              <thead>
                <tr>
                  <th scope="col" className="py-1 pr-4 font-medium">
                    {String(category).replace(/_/g, ' ')}
                  </th>
                  {series.map((s) => (
                    <th key={s.key} scope="col" className="py-1 pr-4 text-right font-medium">
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {data.map((row, i) => (
                  <tr key={i} className="border-t border-border">
                    <th scope="row" className="py-1 pr-4 font-normal">
                      {formatCategory(String(row[category]))}
                    </th>
                    {series.map((s) => (
                      <td key={s.key} className="py-1 pr-4 text-right tabular-nums">
                        {(s.format ?? formatNumber)(numberOf(row[s.key]))}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </figure>
  );
}
