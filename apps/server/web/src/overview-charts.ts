import type uPlot from 'uplot';
import type { Overview } from './api';
import { COLORS } from './chart';

type ChartSpec = { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData };

/** Aligns rows keyed by (x, series) into uPlot's columns: the sorted x values, then one column per series. */
function align<T>(rows: readonly T[], x: (row: T) => number, series: (row: T) => string, y: (row: T) => number) {
  const xs = [...new Set(rows.map(x))].sort((a, b) => a - b);
  const names = [...new Set(rows.map(series))].sort();
  const columns = names.map(() => xs.map(() => null as number | null));
  for (const row of rows) {
    const column = columns[names.indexOf(series(row))] as (number | null)[];
    column[xs.indexOf(x(row))] = (column[xs.indexOf(x(row))] ?? 0) + y(row);
  }
  return { xs, names, columns };
}

function spec(
  aligned: { xs: number[]; names: string[]; columns: (number | null)[][] },
  yLabel: string,
  range: [number, number],
): ChartSpec {
  return {
    data: [aligned.xs, ...aligned.columns] as uPlot.AlignedData,
    options: {
      // The window's whole span, so a single point sits where it happened (not stretched over years).
      scales: {
        x: { time: true, range: () => range },
        y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [{ stroke: 'currentColor' }, { label: yLabel, stroke: 'currentColor' }],
      series: [
        {},
        ...aligned.names.map((name, index) => ({
          label: name || '(no model)',
          stroke: COLORS[index % COLORS.length],
          width: 2,
          points: { show: true, size: 6 },
          spanGaps: false,
        })),
      ],
    },
  };
}

const seconds = (iso: string) => Date.parse(iso) / 1000;
const window = (overview: Overview): [number, number] => [
  seconds(overview.since),
  overview.until === undefined ? Date.now() / 1000 : seconds(overview.until),
];
const days = (overview: Overview): [number, number] => {
  const [since, until] = window(overview);
  return [Math.floor(since / 86_400) * 86_400, until];
};

/** Runs per hour, one series per status. */
export const runsPerHourChart = (overview: Overview): ChartSpec =>
  spec(
    align(
      overview.runsPerHour,
      (row) => seconds(row.hour),
      (row) => row.status,
      (row) => row.runs,
    ),
    'runs',
    window(overview),
  );

/** Tokens (in and out) per day, one series per model. */
export const tokensPerDayChart = (overview: Overview): ChartSpec =>
  spec(
    align(
      overview.usagePerDay,
      (row) => seconds(`${row.day}T00:00:00.000Z`),
      (row) => row.model,
      (row) => row.inputTokens + row.outputTokens,
    ),
    'tokens',
    days(overview),
  );

/** Cost per day, one series per model. */
export const costPerDayChart = (overview: Overview): ChartSpec =>
  spec(
    align(
      overview.usagePerDay,
      (row) => seconds(`${row.day}T00:00:00.000Z`),
      (row) => row.model,
      (row) => row.costUsd,
    ),
    'cost (USD)',
    days(overview),
  );
