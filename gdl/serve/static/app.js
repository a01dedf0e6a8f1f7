// The page of `gdl serve`. Every text that comes from the game (names, glyphs, values, errors)
// goes into the page through textContent or a DOM attribute, never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
let current = null;          // the last state the server sent
let busy = 0;                // requests under way (body[data-busy] lets tests wait for them)
let selected = null;         // the first cell clicked of a move made with two clicks
let stepping = null;         // the search being stepped through: {doc, at}
let stepView = null;         // its tree view
let treeView = null;         // the search tree's view

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

async function call(path, body) {
  busy += 1;
  document.body.dataset.busy = "true";
  try {
    const options = body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    };
    const response = await fetch(path, options);
    const document_ = await response.json();
    if (!response.ok) throw new Error(document_.error || response.statusText);
    return document_;
  } finally {
    busy -= 1;
    if (busy === 0) document.body.dataset.busy = "false";
  }
}

function showError(error) {
  $("error").textContent = error ? String(error.message || error) : "";
}

// ---- values as colours (GamesmanUni's: green win, yellow draw or tie, red loss; the fewer
// ---- moves to the end, the darker) -----------------------------------------------------------

const HUE = { win: 120, best: 120, mixed: 120, draw: 50, tie: 50, worse: 50, unplayed: 50,
              loss: 0, lose: 0, worst: 0 };
const RANK = { win: 3, best: 3, mixed: 2, draw: 2, tie: 2, worse: 1, unplayed: 1, loss: 0,
               lose: 0, worst: 0 };

function valueColour(label, remoteness) {
  const hue = HUE[label];
  if (hue === undefined) return null;
  const light = remoteness === null || remoteness === undefined
    ? 62 : Math.min(80, 30 + 6 * (remoteness - 1));
  const saturation = hue === 50 ? 95 : 70;
  return `hsl(${hue}, ${saturation}%, ${light}%)`;
}

function colourBy(node, label, remoteness) {
  const colour = valueColour(label, remoteness);
  if (colour === null) return;
  node.style.backgroundColor = colour;
  node.dataset.label = label;
  if (remoteness !== null && remoteness !== undefined) node.dataset.remoteness = remoteness;
}

// ---- drawing the state ----------------------------------------------------------------------

function vectorText(values) {
  return values.map((v) => `${v.player} ${v.text}`).join(", ");
}

const CELL = 46;             // a square's side, in pixels
const HEX_HEIGHT = CELL * 2 / Math.sqrt(3);
const MARGIN = 18;           // room for the row and column numbers

// A picture from the rules (docs/language.md, "display"): drawn as SVG, or an image shipped
// with the game (a data: URI, shown by an <img>, which never runs script).
const PIECES = {
  disc: [["circle", { cx: 50, cy: 50, r: 38 }]],
  ring: [["circle", { cx: 50, cy: 50, r: 33, fill: "none", "stroke-width": 11, paint: "stroke" }]],
  cross: [["path", { d: "M24 24 L76 76 M76 24 L24 76", fill: "none", "stroke-width": 13,
                     "stroke-linecap": "round", paint: "stroke" }]],
  square: [["rect", { x: 18, y: 18, width: 64, height: 64, rx: 4 }]],
  triangle: [["polygon", { points: "50,14 87,80 13,80" }]],
  star: [["polygon", { points: "50,10 61,38 91,38 67,56 76,86 50,68 24,86 33,56 9,38 39,38" }]],
  pawn: [["circle", { cx: 50, cy: 30, r: 13 }],
         ["path", { d: "M35 80 Q40 56 44 44 L56 44 Q60 56 65 80 Z" }],
         ["rect", { x: 26, y: 78, width: 48, height: 10, rx: 3 }]],
  rook: [["path", { d: "M30 88 L70 88 L70 80 L63 75 L61 42 L68 37 L68 18 L60 18 L60 26 L54 26 L54 18 L46 18 L46 26 L40 26 L40 18 L32 18 L32 37 L39 42 L37 75 L30 80 Z" }]],
  knight: [["path", { d: "M30 88 L72 88 L70 74 L64 68 L66 50 L60 32 L48 20 L45 11 L39 22 L28 32 L22 48 L29 53 L40 46 L44 50 L34 68 Z" }]],
  bishop: [["circle", { cx: 50, cy: 16, r: 6 }],
           ["path", { d: "M50 22 Q68 38 60 58 L40 58 Q32 38 50 22 Z" }],
           ["path", { d: "M38 80 L43 58 L57 58 L62 80 Z" }],
           ["rect", { x: 26, y: 78, width: 48, height: 10, rx: 3 }]],
  queen: [["path", { d: "M24 34 L36 62 L42 28 L50 58 L58 28 L64 62 L76 34 L68 78 L32 78 Z" }],
          ["rect", { x: 26, y: 78, width: 48, height: 10, rx: 3 }]],
  king: [["rect", { x: 46, y: 8, width: 8, height: 24 }], ["rect", { x: 38, y: 14, width: 24, height: 8 }],
         ["path", { d: "M30 78 Q26 50 42 38 L58 38 Q74 50 70 78 Z" }],
         ["rect", { x: 26, y: 78, width: 48, height: 10, rx: 3 }]],
};

function pictureOf(picture) {
  if (picture.shape === "image") {
    return el("img", { src: picture.src, alt: "", className: "piece" });
  }
  const parts = PIECES[picture.shape];
  if (!parts) return null;
  const colour = picture.colour || "black";
  const image = document.createElementNS(SVG_NS, "svg");
  image.setAttribute("viewBox", "0 0 100 100");
  image.setAttribute("class", "piece");
  for (const [tag, attrs] of parts) {
    const part = document.createElementNS(SVG_NS, tag);
    const stroke = attrs.paint === "stroke";
    for (const [key, value] of Object.entries(attrs)) {
      if (key !== "paint") part.setAttribute(key, String(value));
    }
    if (stroke) {
      part.setAttribute("stroke", colour);
    } else {
      part.setAttribute("fill", colour);
      part.setAttribute("stroke", "#222");
      part.setAttribute("stroke-width", "3");
    }
    image.append(part);
  }
  return image;
}

// Where a drawn board's cell goes, in pixels from the board's corner.
function place(block, cell) {
  const height = cell.height || 1;
  const width = cell.width || 1;
  if (block.layout === "hex") {
    return { left: MARGIN + cell.column * CELL + cell.row * CELL / 2,
             top: MARGIN + cell.row * HEX_HEIGHT * 0.75, width: CELL, height: HEX_HEIGHT };
  }
  return { left: MARGIN + cell.column * CELL, top: MARGIN + cell.row * CELL,
           width: width * CELL, height: height * CELL };
}

function drawnBoard(block) {
  const wrap = el("div", { className: `drawn ${block.layout}`, "data-name": block.name,
                           "data-variable": block.variable });
  let right = 0;
  let bottom = 0;
  for (const cell of block.cells) {
    const where = place(block, cell);
    const square = el("div", { className: "cell", "data-at": cell.at.join(","),
                               "data-value": cell.value, "data-text": cell.text });
    for (const [key, value] of Object.entries(where)) square.style[key] = `${value}px`;
    if (block.checkered && block.layout !== "mancala") {
      square.classList.add((cell.row + cell.column) % 2 ? "dark" : "light");
    } else if (block.background) {
      square.style.backgroundColor = block.background;
    }
    const picture = cell.picture ? pictureOf(cell.picture) : null;
    if (cell.picture && cell.picture.shape === "fill") {
      square.style.backgroundColor = cell.picture.colour;
    } else if (cell.picture && cell.picture.shape === "blank") {
      // nothing drawn: an empty square
    } else if (picture) {
      square.append(picture);
    } else {
      square.append(el("span", { className: "glyph", text: cell.text }));
    }
    square.title = `${block.variable}[${cell.at.join("][")}] = ${cell.value}`;
    wrap.append(square);
    right = Math.max(right, where.left + where.width);
    bottom = Math.max(bottom, where.top + where.height);
  }
  // the indices along the edges, as the moves name them
  block.column_labels.forEach((label, column) => {
    if (!label) return;
    const mark = el("span", { className: "axis", text: label });
    mark.style.left = `${MARGIN + column * CELL}px`;
    mark.style.width = `${CELL}px`;
    mark.style.top = "0px";
    wrap.append(mark);
  });
  block.row_labels.forEach((label, row) => {
    if (!label) return;
    const mark = el("span", { className: "axis", text: label });
    const top = block.layout === "hex" ? MARGIN + row * HEX_HEIGHT * 0.75 : MARGIN + row * CELL;
    const height = block.layout === "hex" ? HEX_HEIGHT : CELL;
    mark.style.left = block.layout === "hex" ? `${row * CELL / 2}px` : "0px";
    mark.style.top = `${top + height / 2 - 8}px`;
    mark.style.width = `${MARGIN}px`;
    wrap.append(mark);
  });
  wrap.style.width = `${right + 4}px`;
  wrap.style.height = `${bottom + 4}px`;
  return wrap;
}

function drawBoard(blocks) {
  const board = $("board");
  board.replaceChildren();
  for (const block of blocks) {
    if (block.kind === "table") {
      const table = el("table", { className: "vars" });
      for (const [name, value] of block.rows) {
        table.append(el("tr", {}, el("td", { text: name }), el("td", { text: value })));
      }
      board.append(table);
    } else if (block.kind === "scalar") {
      board.append(el("p", { className: "board-name", text: `${block.name}: ${block.value}` }));
    } else if (block.kind === "board") {
      board.append(el("p", { className: "board-name", text: block.name }));
      board.append(drawnBoard(block));
    } else {
      board.append(el("p", { className: "board-name", text: block.name }));
      const table = el("table", { className: "grid", "data-name": block.name });
      const twoD = block.rows.length > 1;
      const head = el("tr", {}, el("th"));
      block.rows[0].forEach((_, j) => head.append(el("th", { text: String(j) })));
      table.append(head);
      block.rows.forEach((row, i) => {
        const line = el("tr", {}, el("th", { text: twoD ? String(i) : "" }));
        for (const cell of row) line.append(el("td", { text: cell }));
        table.append(line);
      });
      board.append(table);
    }
  }
}

// ---- moves made on the board ----------------------------------------------------------------

function startsWith(at, prefix) {
  return prefix.length <= at.length && prefix.every((v, i) => at[i] === v);
}

function cellAt(node) {
  return node.dataset.at === "" ? [] : node.dataset.at.split(",").map(Number);
}

function boardCells() {
  return [...document.querySelectorAll("#board .drawn .cell")].map((node) => ({
    node, variable: node.closest(".drawn").dataset.variable, at: cellAt(node),
  }));
}

function onCell(cell, target) {
  return target[0] === cell.variable && startsWith(cell.at, target[1]);
}

function best(moves) {
  return moves.reduce((a, b) => ((RANK[b.label] ?? -1) > (RANK[a.label] ?? -1) ? b : a));
}

function same(cell, where) {
  return cell.variable === where.variable && cell.at.join(",") === where.at.join(",");
}

function yourTurn(state) {
  return !state.over && state.to_move !== "chance" && !state.solver_to_move;
}

// Each cell that plays a move: coloured by the value of its move (the best of them where it
// starts several), and clickable when it is the person's turn. A move of two clicks: its first
// cell, once clicked, is ``selected``, and its destinations are coloured by their values.
function markBoard(state) {
  const yours = yourTurn(state);
  const cells = boardCells();
  const placed = state.moves.filter((m) => m.cells);
  $("board-note").textContent = placed.length && yours
    ? (placed.some((m) => m.cells.length === 2)
      ? "Click a piece, then where it goes (or pick a move from the list)."
      : "Click the board to move (or pick a move from the list).") : "";
  for (const cell of cells) {
    cell.one = placed.filter((m) => m.cells.length === 1 && onCell(cell, m.cells[0]));
    cell.from = placed.filter((m) => m.cells.length === 2 && onCell(cell, m.cells[0]));
    if (yours && placed.length) cell.node.addEventListener("click", () => clickCell(cell, cells));
    const moves = cell.one.length ? cell.one : cell.from;
    if (!moves.length) continue;
    const top = best(moves);
    colourBy(cell.node, top.label, top.remoteness);
    cell.node.classList.add(cell.one.length ? "playable" : "from");
    cell.node.dataset.moves = moves.map((m) => m.name).join(" ");
    if (yours) cell.node.classList.add("clickable");
  }
  const from = selected && yours ? cells.find((c) => same(c, selected) && c.from.length) : null;
  selected = from ? selected : null;
  if (from) {
    from.node.classList.add("selected");
    for (const cell of cells) {
      const to = from.from.filter((m) => onCell(cell, m.cells[1]));
      if (!to.length) continue;
      const top = best(to);
      cell.node.classList.add("destination", "clickable");
      colourBy(cell.node, top.label, top.remoteness);
      cell.node.dataset.moves = to.map((m) => m.name).join(" ");
    }
  }
}

function redrawBoard() {
  drawBoard(current.board);
  markBoard(current);
}

function clickCell(cell, cells) {
  if (selected) {
    const from = cells.find((c) => same(c, selected));
    const moves = from ? from.from.filter((m) => onCell(cell, m.cells[1])) : [];
    selected = null;
    if (moves.length === 1) {
      act("/api/move", { index: moves[0].index });
      return;
    }
    if (moves.length > 1) {       // a promotion to one of several pieces: the list says which
      redrawBoard();
      $("board-note").textContent = "Several moves go there: "
        + `${moves.map((m) => m.name).join(", ")}; pick one from the list.`;
      return;
    }
    if (cell.from.length && from !== cell) selected = { variable: cell.variable, at: cell.at };
    redrawBoard();
    return;
  }
  if (cell.one.length === 1) {
    act("/api/move", { index: cell.one[0].index });
  } else if (cell.one.length > 1) {
    $("board-note").textContent = "Several moves are played here: "
      + `${cell.one.map((m) => m.name).join(", ")}; pick one from the list.`;
  } else if (cell.from.length) {
    selected = { variable: cell.variable, at: cell.at };
    redrawBoard();
  }
}

// ---- the value history ------------------------------------------------------------------------

function drawValueHistory(state) {
  const strip = $("value-history");
  strip.replaceChildren();
  const entries = state.value_history || [];
  $("value-history-box").hidden = !entries.some((e) => e.label);
  entries.forEach((entry, i) => {
    const mark = el("span", { className: "vh", role: "listitem", "data-index": String(i) });
    if (entry.label) colourBy(mark, entry.label, entry.remoteness);
    mark.textContent = entry.remoteness === null || entry.remoteness === undefined
      ? (entry.mover ? entry.mover.slice(0, 1) : "■") : String(entry.remoteness);
    mark.title = `${i}. ${entry.text}` + (entry.move ? `; played ${entry.move}` : " (now)");
    if (i === entries.length - 1) mark.classList.add("now");
    strip.append(mark);
  });
}

// ---- the moves and the rest of the state ------------------------------------------------------

function drawMoves(state) {
  const list = $("moves");
  list.replaceChildren();
  const yours = state.to_move === "chance" || !state.solver_to_move;
  for (const move of state.moves) {
    const button = el("button", { type: "button", text: move.name });
    button.disabled = !yours;
    button.addEventListener("click", () => act("/api/move", { index: move.index }));
    const item = el("li", { className: move.label || "", "data-name": move.name }, button);
    if (move.label) item.dataset.label = move.label;
    if (move.value !== undefined) item.dataset.value = move.value;
    let note = "";
    // A game with simultaneous moves or hidden information: the equilibrium's probability of
    // the move at the information state you are in (no value: it would need the hidden cards).
    if (move.strategy !== undefined) note = `equilibrium plays it with probability ${move.strategy}`;
    else if (move.label === "chance") note = `probability ${move.probability}; value ${vectorText(move.values)}`;
    else if (move.values) {
      const word = ["win", "draw", "loss"].includes(move.label) ? `${move.label}, ` : "";
      note = `${word}${vectorText(move.values)}`;
    } else if (move.label === "draw") {
      note = "draw (endless play, no value)";
    }
    const value = el("span", { className: "value" + (move.optimal ? " optimal" : ""), text: note });
    item.append(value);
    // With --db: what the position database says of the move, "win in 3" (text only).
    if (move.remoteness_text !== undefined) {
      item.dataset.remoteness = move.remoteness_text;
      item.append(el("span", { className: "remoteness", text: move.remoteness_text }));
    }
    list.append(item);
  }
}

function drawSeats(state) {
  const seats = $("seats");
  seats.replaceChildren(el("legend", { text: "You play (the solver plays the others)" }));
  state.players.forEach((player, index) => {
    const box = el("input", { type: "checkbox", "data-player": player });
    box.checked = state.human.includes(index);
    box.addEventListener("change", () => {
      const human = [...seats.querySelectorAll("input")].flatMap((b, i) => (b.checked ? [i] : []));
      act("/api/seats", { human });
    });
    seats.append(el("label", {}, box, ` ${player}`));
  });
}

function draw(state) {
  if (current && current.history.length !== state.history.length) selected = null;
  current = state;
  document.title = `${state.game} · gdl`;
  $("title").textContent = state.game;
  $("file").textContent = state.file;
  drawBoard(state.board);
  markBoard(state);
  $("board-problems").textContent = (state.board_problems || []).join("\n");
  drawValueHistory(state);
  drawSeats(state);
  let status;
  if (state.over) {
    status = `Game over: ${vectorText(state.result)}` + (state.verdict ? ` (${state.verdict})` : "");
  } else if (state.to_move === "chance") {
    status = "Chance: roll the dice, or choose an outcome.";
  } else if (state.together) {
    status = `${state.to_move} choose at once` + (state.solver_to_move ? " (the computer)"
      : ": choose yours; the computer chooses without seeing it, then both are shown");
  } else {
    status = `${state.to_move} to move` + (state.solver_to_move ? " (the solver)" : " (you)");
  }
  $("status").textContent = status;
  let valueText = "";
  if (state.wide) {
    // Only what your seat may see is sent: ? marks a hidden card or a move hidden from you.
    valueText = (state.hidden ? `You see what ${state.seat} may see (? is hidden from you). ` : "")
      + (state.values ? `Value of the game: ${vectorText(state.values)}` : "")
      + (state.equilibrium ? ` (${state.equilibrium.algorithm}, ${state.equilibrium.exact ? "exact" : "approximate"});`
        + " the computer plays its equilibrium strategy, drawn at random." : "");
  } else if (state.values) {
    const estimate = state.solver ? " (approximate: not proven exact)" : " (an estimate: depth-limited)";
    valueText = `Value with best play: ${vectorText(state.values)}` + (state.proven ? "" : estimate);
  } else if (state.draw) {
    valueText = "A draw: neither side can force an end, and the rules give endless play no value.";
  }
  // A game that can repeat a position: which solver answered, and why (text only).
  if (state.solver) valueText += ` ${state.solver.note} (${state.solver.name})`;
  $("position-value").textContent = valueText;
  if (state.database && !state.database.in_use) {
    $("position-value").textContent += " (the position database is for the rules on disk: no remoteness for edited rules)";
  }
  drawMoves(state);
  const history = $("history");
  history.replaceChildren();
  for (const move of state.history) {
    const chance = move.probability ? ` (probability ${move.probability})` : "";
    history.append(el("li", { text: `${move.player}: ${move.move}${chance}` }));
  }
  $("undo").disabled = state.history.length === 0;
  $("roll").disabled = state.to_move !== "chance";
  $("solver").disabled = state.over || state.to_move === "chance" || (state.wide && !state.solver_to_move);
  showError(state.error);
  if ($("rules").dataset.loaded !== state.rules) {
    $("rules").value = state.rules;
    $("rules").dataset.loaded = state.rules;
  }
}

// ---- acting ---------------------------------------------------------------------------------

async function act(path, body = {}) {
  try {
    showError(null);
    let state = await call(path, body);
    draw(state);
    // The solver answers at once for the seats it plays (chance waits for a roll or a choice).
    while (state.solver_to_move && !state.over && state.to_move !== "chance") {
      state = await call("/api/solver", {});
      draw(state);
    }
  } catch (error) {
    showError(error);
  }
}

// ---- the search tree ----------------------------------------------------------------------------

async function showTree() {
  const depthText = $("tree-depth").value.trim();
  const depth = depthText === "" ? null : Number(depthText);
  $("tree-note").textContent = "searching…";
  try {
    const tree = await call("/api/tree", { depth });
    $("tree-note").textContent = `${tree.nodes} node(s) visited, ${tree.pruned} pruned`
      + (tree.note ? `. ${tree.note}` : "");
    $("tree-box").hidden = !tree.tree;
    if (tree.tree) {
      if (!treeView) treeView = new GdlTree.TreeView($("tree-box"));
      const nodes = tree.tree.nodes.map((n, i) => ({ ...n, id: i, parent: n.parent < 0 ? null : n.parent }));
      treeView.show(nodes, { fresh: true });
    }
    $("tree-text").textContent = tree.text;
  } catch (error) {
    $("tree-note").textContent = String(error.message || error);
    $("tree-text").textContent = "";
    $("tree-box").hidden = true;
  }
}

// ---- stepping through a search ----------------------------------------------------------------

function endText(end) {
  if (end === "-inf") return "−∞";
  if (end === "+inf") return "+∞";
  return String(end).replace("-", "−");
}

function windowText(window) {
  return window ? `α = ${endText(window[0])}, β = ${endText(window[1])}` : "";
}

function eventValue(doc, event) {
  if (!event.values) return "";
  const two = doc.players.length === 2 || doc.algorithm === "paranoid";
  if (!two) return `(${event.values.join(", ")})` + (event.bound === "partial" ? " cut" : "");
  const sign = { upper: "≤ ", lower: "≥ " }[event.bound] || "";
  return sign + String(event.values[0]);
}

// The tree the first ``upto`` events describe: nodes by visit, each under the node its path's
// parent last was (a re-searched child is a new node), with its window, its value once known,
// the children a cut-off left, and the node the last event is at.
function stepTree(doc, upto) {
  const nodes = new Map();
  const latest = new Map();
  const key = (path) => JSON.stringify(path);
  const maxPlayer = doc.algorithm === "paranoid" ? doc.players[doc.settings.player || 0] : doc.players[0];
  const two = doc.players.length === 2 || doc.algorithm === "paranoid";
  const cuts = [];
  let currentId = null;
  let synthetic = -1;
  for (let i = 0; i < upto; i += 1) {
    const e = doc.events[i];
    if (e.kind === "enter") {
      const parent = e.path.length ? latest.get(key(e.path.slice(0, -1))) : null;
      let kind = "player";
      if (e.player === "terminal") kind = "leaf";
      else if (e.player === "chance") kind = "chance";
      else if (two) kind = e.player === maxPlayer ? "max" : "min";
      let name = e.path.length ? e.path[e.path.length - 1] : "";
      if (e.probability !== undefined) name += ` (${e.probability})`;
      const node = { id: e.node, parent: parent ?? null, name, kind, who: e.player, window: e.window,
                     value: "", pruned: [], path: e.path };
      if (e.again) node.note = "searched again, with a wider window";
      nodes.set(e.node, node);
      latest.set(key(e.path), e.node);
      currentId = e.node;
    } else if (e.kind === "table" && e.node < 0) {
      // the table answered for a child, which is then not visited
      const parent = latest.get(key(e.path.slice(0, -1)));
      const id = synthetic;
      synthetic -= 1;
      nodes.set(id, { id, parent: parent ?? null, name: e.path[e.path.length - 1] || "",
                      kind: "leaf", value: eventValue(doc, e), pruned: [], note: "from the table",
                      path: e.path });
      currentId = id;
    } else {
      const id = latest.get(key(e.path));
      const node = nodes.get(id);
      if (!node) continue;
      currentId = id;
      if (["leaf", "exit", "table", "average"].includes(e.kind)) node.value = eventValue(doc, e);
      if (e.kind === "table") node.note = "answered by the table";
      if (e.kind === "cutoff") {
        node.pruned = e.skipped;
        node.cut = e.text;
        cuts.push({ step: e.step, text: e.text, id });
      }
      if (e.kind === "probe") node.note = "probed";
      if (e.kind === "resume" && e.window) node.window = e.window;
    }
  }
  for (const node of nodes.values()) {
    node.sub = node.window && doc.events.some((e) => e.window) ? `[${endText(node.window[0])}, ${endText(node.window[1])}]` : "";
  }
  return { nodes: [...nodes.values()], cuts, currentId };
}

function drawStep() {
  const { doc, at } = stepping;
  const total = doc.events.length;
  $("step-count").textContent = `event ${at} of ${total}`;
  const event = at > 0 ? doc.events[at - 1] : null;
  $("step-event").textContent = event ? `${at}. ${event.text}` : "Press forward (→) to take the first step.";
  $("step-event").dataset.kind = event ? event.kind : "";
  const tree = stepTree(doc, at);
  const node = tree.nodes.find((n) => n.id === tree.currentId);
  if (node) {
    const where = node.path.length ? node.path.join(" ") : "the root";
    const parts = [`Current node: ${where}`];
    if (node.who && node.who !== "terminal") parts.push(`${node.who} to move`);
    if (node.window) parts.push(`window ${windowText(node.window)}`);
    if (node.value) parts.push(`value ${node.value}`);
    $("step-node").textContent = parts.join(" · ");
    $("step-node").dataset.window = node.window ? windowText(node.window) : "";
  } else {
    $("step-node").textContent = "";
    $("step-node").dataset.window = "";
  }
  $("step-tree").hidden = false;
  if (!stepView) stepView = new GdlTree.TreeView($("step-tree"));
  stepView.show(tree.nodes, { current: tree.currentId, fresh: stepping.fresh });
  stepping.fresh = false;
  const cuts = $("step-cuts");
  cuts.replaceChildren();
  for (const cut of tree.cuts) cuts.append(el("li", { text: `event ${cut.step}: ${cut.text}` }));
  $("step-cuts-title").hidden = tree.cuts.length === 0;
  $("step-first").disabled = $("step-back").disabled = at === 0;
  $("step-forward").disabled = $("step-end").disabled = at === total;
}

function stepTo(at) {
  if (!stepping) return;
  stepping.at = Math.max(0, Math.min(stepping.doc.events.length, at));
  drawStep();
}

async function startStepping() {
  const depthText = $("step-depth").value.trim();
  const body = {
    algorithm: $("step-algorithm").value,
    depth: depthText === "" ? null : Number(depthText),
    table: $("step-table").checked,
    ordering: $("step-ordering").checked,
  };
  $("step-heading").textContent = "searching…";
  try {
    const doc = await call("/api/step", body);
    stepping = { doc, at: 0, fresh: true };
    $("step-heading").textContent = [doc.heading, ...doc.notes.map((n) => `note: ${n}`)].join("\n");
    $("step-controls").hidden = false;
    drawStep();
  } catch (error) {
    stepping = null;
    $("step-heading").textContent = String(error.message || error);
    $("step-controls").hidden = true;
    $("step-tree").hidden = true;
    $("step-event").textContent = "";
    $("step-node").textContent = "";
  }
}

// ---- the rules ------------------------------------------------------------------------------

// Put the caret on a located problem: gdl counts lines and columns from 1, in characters.
function selectProblem(area, problem) {
  if (!problem || !problem.line) return;
  const lines = area.value.split("\n");
  let start = 0;
  for (let i = 0; i < problem.line - 1 && i < lines.length; i += 1) start += lines[i].length + 1;
  start += problem.column - 1;
  let end = start + 1;
  if (problem.end_line === problem.line && problem.end_column > problem.column) {
    end = start + (problem.end_column - problem.column);
  }
  area.focus();
  area.setSelectionRange(start, end);
}

async function loadRules() {
  $("rule-errors").textContent = "";
  try {
    const answer = await call("/api/rules", { text: $("rules").value });
    if (answer.ok) {
      $("rules").dataset.loaded = "";
      draw(answer.state);
      $("rule-errors").textContent = "";
      if (answer.state.solver_to_move) act("/api/solver");
    } else {
      $("rule-errors").textContent = answer.errors;
      selectProblem($("rules"), answer.diagnostics[0]);
    }
  } catch (error) {
    $("rule-errors").textContent = String(error.message || error);
  }
}

window.addEventListener("DOMContentLoaded", () => {
  $("undo").addEventListener("click", () => act("/api/undo"));
  $("restart").addEventListener("click", () => act("/api/restart"));
  $("solver").addEventListener("click", () => act("/api/solver"));
  $("roll").addEventListener("click", () => act("/api/roll"));
  $("show-tree").addEventListener("click", showTree);
  $("load-rules").addEventListener("click", loadRules);
  $("step-start").addEventListener("click", startStepping);
  $("step-first").addEventListener("click", () => stepTo(0));
  $("step-back").addEventListener("click", () => stepTo(stepping.at - 1));
  $("step-forward").addEventListener("click", () => stepTo(stepping.at + 1));
  $("step-end").addEventListener("click", () => stepTo(stepping.doc.events.length));
  document.addEventListener("keydown", (event) => {
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName)
      || document.activeElement.closest("svg");
    if (!stepping || typing) return;
    const to = { ArrowRight: stepping.at + 1, ArrowLeft: stepping.at - 1, Home: 0,
                 End: stepping.doc.events.length }[event.key];
    if (to !== undefined) {
      stepTo(to);
      event.preventDefault();
    }
  });
  (async () => {
    try {
      const state = await call("/api/state");
      draw(state);
      if (state.solver_to_move && !state.over) act("/api/solver");
    } catch (error) {
      showError(error);
    }
  })();
});
