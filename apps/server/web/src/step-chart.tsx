import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import type { InspectorEvent } from './api';
import { Chart, COLORS } from './chart';

/** The tokens series is drawn as bars. */
const TOKENS = [1];

/** Tokens (in and out) of each step's model call, as bars by step (the run's own calls). */
export function StepChart({ events }: { events: readonly InspectorEvent[] }) {
  const { data, options } = useMemo(() => {
    const ends = events.filter((event) => event.type === 'model_end' && event.parentRunId === undefined);
    const data: uPlot.AlignedData = [
      ends.map((event) => event.step ?? 0),
      ends.map((event) => (event.usage ? event.usage.inputTokens + event.usage.outputTokens : 0)),
      ends.map((event) => event.usage?.costUsd ?? null),
    ];
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      // Half a step of room on each side, so the first and last bars are whole.
      scales: {
        x: { time: false, range: (_plot, min, max) => [min - 0.5, max + 0.5] },
        y: { range: (_plot, _min, max) => [0, Math.max(max, 1)] },
        cost: { range: (_plot, _min, max) => [0, Math.max(max, 0.0001)] },
      },
      axes: [
        { label: 'step', stroke: 'currentColor', grid: { show: false }, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500] },
        { label: 'tokens', stroke: 'currentColor' },
        { label: 'cost (USD)', scale: 'cost', side: 1, stroke: 'currentColor', grid: { show: false } },
      ],
      series: [
        { label: 'step' },
        { label: 'tokens', stroke: COLORS[0], fill: `${COLORS[0]}99` },
        { label: 'cost', scale: 'cost', stroke: COLORS[2], width: 2, points: { show: true } },
      ],
    };
    return { data, options };
  }, [events]);
  if ((data[0] as number[]).length === 0) return null;
  return <Chart label="Tokens and cost per step" options={options} data={data} height={180} barSeries={TOKENS} />;
}
