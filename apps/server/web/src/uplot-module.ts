// uPlot and its stylesheet, loaded as their own chunk by `chart.tsx` (only pages with a chart need them).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export default uPlot;
