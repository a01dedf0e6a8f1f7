// The tree view of `gdl serve`: a search tree drawn as SVG from a flat list of nodes. It opens
// on the root, pans (drag, or the arrow keys when it has the focus), zooms (the wheel, + and -),
// and folds a subtree when its node is clicked. Every text goes in through textContent.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const STEP_X = 72;           // between neighbouring leaves, at least (wider for long move names)
const LABEL_CHAR = 6.5;      // the width of a character of an edge's label (11px), roughly
const STEP_Y = 84;           // between depths
const RADIUS = 15;

function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

class TreeView {
  // container: an element; it gets a toolbar and an <svg>.
  constructor(container) {
    this.container = container;
    this.nodes = [];
    this.folded = new Set();
    this.view = { x: 0, y: 0, scale: 1 };
    this.stepX = STEP_X;
    this.current = null;
    const bar = document.createElement("div");
    bar.className = "tree-bar buttons";
    const button = (label, title, action) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = title;
      b.addEventListener("click", action);
      bar.append(b);
      return b;
    };
    button("+", "zoom in", () => this.zoom(1.25));
    button("−", "zoom out", () => this.zoom(0.8));
    button("root", "back to the root", () => this.openOnRoot());
    button("fit", "the whole tree", () => this.fit());
    button("unfold all", "show every folded subtree", () => { this.folded.clear(); this.draw(); });
    const hint = document.createElement("span");
    hint.className = "muted legend";
    hint.textContent = "drag to pan, wheel to zoom, click a node to fold or unfold it";
    bar.append(hint);
    this.svg = svgEl("svg", { class: "tree-svg", tabindex: "0", role: "img",
                              "aria-label": "search tree" });
    this.layer = svgEl("g");
    this.svg.append(this.layer);
    container.replaceChildren(bar, this.svg);
    this.listen();
  }

  // ---- the nodes -------------------------------------------------------------------------
  // nodes: [{id, parent (an id, or null for the root), name, kind (max, min, chance, leaf,
  // player), value, sub (more text under it), pruned: [names], principal, optimal, note,
  // cut}]. options.current: the id to mark; options.keepView: do not recentre.
  show(nodes, options = {}) {
    const first = this.nodes.length === 0 || options.fresh;
    this.nodes = nodes;
    this.current = options.current ?? null;
    if (options.fresh) this.folded.clear();
    this.draw();
    if (first) this.openOnRoot();
    else if (this.current !== null) this.reveal(this.current);
  }

  layout() {
    const byId = new Map(this.nodes.map((n) => [n.id, n]));
    const children = new Map();
    let root = null;
    for (const node of this.nodes) {
      if (node.parent === null || node.parent === undefined || !byId.has(node.parent)) {
        if (root === null) root = node;
        continue;
      }
      if (!children.has(node.parent)) children.set(node.parent, []);
      children.get(node.parent).push(node);
    }
    const placed = new Map();
    if (root === null) return { placed, children, root };
    let next = 0;
    // depth-first without recursion: a deep tree stays within the stack
    const stack = [{ node: root, depth: 0, open: true }];
    const order = [];
    while (stack.length) {
      const item = stack.pop();
      const node = item.node;
      const kids = this.folded.has(node.id) ? [] : (children.get(node.id) || []);
      const stubs = this.folded.has(node.id) ? [] : (node.pruned || []);
      if (item.open) {
        order.push(item);
        if (kids.length === 0 && stubs.length === 0) {
          placed.set(node.id, { x: next, y: item.depth, node });
          next += 1;
          continue;
        }
        stack.push({ node, depth: item.depth, open: false });
        for (let i = kids.length - 1; i >= 0; i -= 1) {
          stack.push({ node: kids[i], depth: item.depth + 1, open: true });
        }
      } else {
        const xs = kids.map((k) => placed.get(k.id).x);
        const stubX = stubs.map(() => { next += 1; return next - 1; });
        const all = xs.concat(stubX);
        placed.set(node.id, { x: (Math.min(...all) + Math.max(...all)) / 2, y: item.depth, node,
                              stubs: stubX });
      }
    }
    return { placed, children, root };
  }

  hiddenCount(id, children) {
    let count = 0;
    const stack = [...(children.get(id) || [])];
    while (stack.length) {
      const node = stack.pop();
      count += 1;
      stack.push(...(children.get(node.id) || []));
    }
    return count;
  }

  draw() {
    const { placed, children, root } = this.layout();
    this.placed = placed;
    this.root = root;
    // each edge's label is written over its child, so neighbours must be a label apart
    const names = this.nodes.flatMap((n) => [n.name || "", ...(n.pruned || [])]);
    this.stepX = Math.max(STEP_X, ...names.map((name) => name.length * LABEL_CHAR + 14));
    const edges = svgEl("g", { class: "edges" });
    const shapes = svgEl("g", { class: "nodes" });
    const px = (p) => p.x * this.stepX;
    const py = (p) => p.y * STEP_Y;
    for (const [id, p] of placed) {
      const node = p.node;
      const kids = this.folded.has(id) ? [] : (children.get(id) || []);
      for (const kid of kids) {
        const q = placed.get(kid.id);
        if (!q) continue;
        const line = svgEl("line", { x1: px(p), y1: py(p) + RADIUS, x2: px(q), y2: py(q) - RADIUS,
                                     class: "edge" + (kid.principal ? " principal" : "")
                                       + (kid.optimal && !kid.principal ? " optimal" : "") });
        edges.append(line);
        if (kid.name) {       // over the child, above its window
          edges.append(svgEl("text", { x: px(q), y: py(q) - RADIUS - 18, class: "edge-label" },
                             kid.name));
        }
      }
      (p.stubs || []).forEach((x, i) => {
        const name = node.pruned[i];
        const sx = x * this.stepX;
        const sy = py(p) + STEP_Y;
        const stub = svgEl("g", { class: "pruned", "data-pruned": name });
        stub.append(svgEl("line", { x1: px(p), y1: py(p) + RADIUS, x2: sx, y2: sy - 9 }));
        stub.append(svgEl("rect", { x: sx - 9, y: sy - 9, width: 18, height: 18, rx: 3 }));
        stub.append(svgEl("text", { x: sx, y: sy - 15, class: "edge-label" }, name));
        stub.append(svgEl("text", { x: sx, y: sy + 24, class: "node-value" }, "pruned"));
        edges.append(stub);
      });
      shapes.append(this.nodeShape(node, px(p), py(p), children));
    }
    this.layer.replaceChildren(edges, shapes);
    this.applyView();
  }

  nodeShape(node, x, y, children) {
    const folded = this.folded.has(node.id) && (children.get(node.id) || []).length > 0;
    const group = svgEl("g", {
      class: `node ${node.kind}` + (node.id === this.current ? " current" : "")
        + (node.principal ? " principal" : "") + (folded ? " folded" : ""),
      "data-id": node.id, "data-name": node.name || "", "data-value": node.value || "",
      "data-kind": node.kind,
    });
    const r = RADIUS;
    let shape;
    if (node.kind === "max") {
      shape = svgEl("polygon", { points: `${x},${y - r} ${x + r},${y + r * 0.8} ${x - r},${y + r * 0.8}` });
    } else if (node.kind === "min") {
      shape = svgEl("polygon", { points: `${x - r},${y - r * 0.8} ${x + r},${y - r * 0.8} ${x},${y + r}` });
    } else if (node.kind === "chance") {
      shape = svgEl("circle", { cx: x, cy: y, r });
    } else if (node.kind === "leaf") {
      shape = svgEl("rect", { x: x - r * 0.8, y: y - r * 0.8, width: r * 1.6, height: r * 1.6 });
    } else {
      shape = svgEl("rect", { x: x - r, y: y - r * 0.8, width: r * 2, height: r * 1.6, rx: 5 });
    }
    group.append(shape);
    const title = svgEl("title", {}, [node.name || "the root", node.who, node.value, node.note,
                                      node.sub].filter(Boolean).join(" · "));
    group.append(title);
    // a leaf's value under it; an inner node's beside it, clear of its children's edges
    const inner = (children.get(node.id) || []).length > 0 || (node.pruned || []).length > 0;
    if (node.value !== undefined && node.value !== null) {
      group.append(svgEl("text", inner ? { x: x + r + 5, y: y + 4, class: "node-value inner" }
                                       : { x, y: y + r + 14, class: "node-value" }, node.value));
    }
    // the window above the node, where the edge comes in
    if (node.sub) group.append(svgEl("text", { x, y: y - r - 5, class: "node-sub" }, node.sub));
    if (node.who && node.kind === "player") {
      group.append(svgEl("text", { x, y: y + 4, class: "node-who" }, node.who.slice(0, 3)));
    }
    if (folded) {
      group.append(svgEl("text", { x: x + r + 3, y: y + 4, class: "node-folded" },
                         `+${this.hiddenCount(node.id, children)}`));
    }
    group.addEventListener("click", (event) => {
      if (this.dragged) return;
      event.stopPropagation();
      if ((children.get(node.id) || []).length === 0 && !(node.pruned || []).length) return;
      if (this.folded.has(node.id)) this.folded.delete(node.id);
      else this.folded.add(node.id);
      this.draw();
    });
    return group;
  }

  // ---- the view ----------------------------------------------------------------------------
  size() {
    const box = this.svg.getBoundingClientRect();
    return { width: box.width || 600, height: box.height || 400 };
  }

  applyView() {
    const { x, y, scale } = this.view;
    this.layer.setAttribute("transform", `translate(${x},${y}) scale(${scale})`);
  }

  openOnRoot() {
    const { width } = this.size();
    const root = this.root ? this.placed.get(this.root.id) : null;
    this.view.scale = 1;
    this.view.x = width / 2 - (root ? root.x * this.stepX : 0);
    this.view.y = RADIUS + 30;
    this.applyView();
  }

  fit() {
    const { width, height } = this.size();
    const xs = [...this.placed.values()].flatMap((p) => [p.x, ...(p.stubs || [])]);
    const ys = [...this.placed.values()].map((p) => p.y + ((p.stubs || []).length ? 1 : 0));
    if (!xs.length) return;
    const step = this.stepX;
    const spanX = (Math.max(...xs) - Math.min(...xs)) * step + 2 * step;
    const spanY = Math.max(...ys) * STEP_Y + STEP_Y;
    const scale = Math.min(2, width / spanX, height / spanY);
    this.view.scale = scale;
    // centred across: a narrow tree in the middle, a wide one from its left edge
    this.view.x = -Math.min(...xs) * step * scale + step * scale
      + Math.max(0, (width - spanX * scale) / 2);
    this.view.y = (RADIUS + 20) * scale;
    this.applyView();
  }

  zoom(factor, cx, cy) {
    const { width, height } = this.size();
    const ox = cx ?? width / 2;
    const oy = cy ?? height / 2;
    const scale = Math.min(4, Math.max(0.05, this.view.scale * factor));
    const real = scale / this.view.scale;
    this.view.x = ox - (ox - this.view.x) * real;
    this.view.y = oy - (oy - this.view.y) * real;
    this.view.scale = scale;
    this.applyView();
  }

  // Bring a node into view (the current event's, while stepping) if it is outside.
  reveal(id) {
    const p = this.placed.get(id);
    if (!p) return;
    const { width, height } = this.size();
    const sx = p.x * this.stepX * this.view.scale + this.view.x;
    const sy = p.y * STEP_Y * this.view.scale + this.view.y;
    const margin = 40;
    if (sx < margin || sx > width - margin) this.view.x += width / 2 - sx;
    if (sy < margin || sy > height - margin) this.view.y += height / 2 - sy;
    this.applyView();
  }

  listen() {
    let start = null;
    this.svg.addEventListener("pointerdown", (event) => {
      start = { x: event.clientX, y: event.clientY, vx: this.view.x, vy: this.view.y };
      this.dragged = false;
    });
    this.svg.addEventListener("pointermove", (event) => {
      if (!start) return;
      const dx = event.clientX - start.x;
      const dy = event.clientY - start.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) {
        this.dragged = true;
        this.svg.classList.add("panning");
      }
      if (this.dragged) {
        this.view.x = start.vx + dx;
        this.view.y = start.vy + dy;
        this.applyView();
      }
    });
    const stop = () => {
      start = null;
      this.svg.classList.remove("panning");
      // a click after a drag is no click on a node
      setTimeout(() => { this.dragged = false; }, 0);
    };
    this.svg.addEventListener("pointerup", stop);
    this.svg.addEventListener("pointerleave", stop);
    this.svg.addEventListener("wheel", (event) => {
      event.preventDefault();
      const box = this.svg.getBoundingClientRect();
      this.zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, event.clientX - box.left, event.clientY - box.top);
    }, { passive: false });
    this.svg.addEventListener("keydown", (event) => {
      const moves = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] };
      if (moves[event.key]) {
        this.view.x += moves[event.key][0];
        this.view.y += moves[event.key][1];
        this.applyView();
        event.preventDefault();
      } else if (event.key === "+" || event.key === "=") {
        this.zoom(1.25);
      } else if (event.key === "-") {
        this.zoom(0.8);
      }
    });
  }
}

window.GdlTree = { TreeView };
