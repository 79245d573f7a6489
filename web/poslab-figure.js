// The <poslab-figure> script a host page includes (`<script type="module" src=".../poslab-figure.js">`).
// The build writes it under this stable name next to index.html; links point back beside it.
import { definePoslabFigure } from './src/embed/element.js';

definePoslabFigure(new URL(/* @vite-ignore */ './', import.meta.url));
