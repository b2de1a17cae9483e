// Entry point: lays out the frame (top bar, sidebar, page) and starts the app.
import './style.css';
import { App } from './app';
import { h } from './dom';

const sidebar = h('aside', { class: 'sidebar', 'aria-label': 'Selection' });
const main = h('main', { class: 'main', id: 'page' });
const frame = h(
  'div',
  { class: 'frame' },
  h('header', { class: 'topbar' }, h('span', { class: 'brand' }, 'mlprof'), h('span', { class: 'tagline' }, 'Profile')),
  sidebar,
  main,
);
document.getElementById('app')!.appendChild(frame);
void new App(sidebar, main).start();
