// Entry point: lays out the frame (top bar, sidebar, page) and starts the app.
import './style.css';
import { App } from './app';
import { captureButton } from './capture_dialog';
import { h } from './dom';

const sidebar = h('aside', { class: 'sidebar', 'aria-label': 'Selection' });
const main = h('main', { class: 'main', id: 'page' });
const app = new App(sidebar, main);
const frame = h(
  'div',
  { class: 'frame' },
  h(
    'header',
    { class: 'topbar' },
    h('span', { class: 'brand' }, 'mlprof'),
    h('span', { class: 'tagline' }, 'Profile'),
    captureButton((result) => void app.openRun(result.run, result.workers.length > 1 ? 'pod_viewer' : '')),
  ),
  sidebar,
  main,
);
document.getElementById('app')!.appendChild(frame);
void app.start();
