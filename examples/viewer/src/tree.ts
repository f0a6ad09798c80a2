/**
 * The file tree: groups as expandable entries whose members are listed on first expansion, datasets and
 * other objects as selectable lines.
 * @module
 */
import { Group, type H5File } from '@chunkform/core';

/** Called with the path of the object the user selected. */
export type SelectHandler = (path: string, el: HTMLElement) => void;

/** Replaces the contents of `root` with the file's tree, root group expanded. */
export async function showTree(root: HTMLElement, file: H5File, onSelect: SelectHandler): Promise<void> {
  root.replaceChildren();
  const top = document.createElement('details');
  top.open = true;
  top.append(summary('/', '/', onSelect));
  const body = document.createElement('div');
  top.append(body);
  root.append(top);
  await fillGroup(body, file, '/', onSelect);
}

function summary(label: string, path: string, onSelect: SelectHandler): HTMLElement {
  const s = document.createElement('summary');
  s.className = 'node';
  s.textContent = label;
  s.dataset.path = path;
  s.addEventListener('click', () => onSelect(path, s));
  return s;
}

async function fillGroup(body: HTMLElement, group: Group, path: string, onSelect: SelectHandler): Promise<void> {
  for (const link of await group.links()) {
    const child = path === '/' ? `/${link.name}` : `${path}/${link.name}`;
    if (link.kind === 'external' || link.kind === 'user') {
      const span = document.createElement('span');
      span.className = 'node';
      span.textContent = `${link.name} → ${link.kind === 'external' ? `${link.file}:${link.path}` : 'user-defined link'}`;
      body.append(span);
      continue;
    }
    let node: unknown;
    try {
      node = await group.get(link.name);
    } catch (e) {
      const span = document.createElement('span');
      span.className = 'node';
      span.textContent = `${link.name} (${(e as Error).message})`;
      body.append(span);
      continue;
    }
    if (node instanceof Group) {
      const det = document.createElement('details');
      const inner = document.createElement('div');
      det.append(summary(`${link.name}/`, child, onSelect), inner);
      let filled = false;
      det.addEventListener('toggle', () => {
        if (det.open && !filled) {
          filled = true;
          void fillGroup(inner, node, child, onSelect);
        }
      });
      body.append(det);
    } else {
      const span = document.createElement('span');
      span.className = 'node';
      span.textContent = link.kind === 'soft' ? `${link.name} → ${link.target}` : link.name;
      span.dataset.path = child;
      span.addEventListener('click', () => onSelect(child, span));
      body.append(span);
    }
  }
}
