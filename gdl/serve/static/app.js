// The page of `gdl serve`. Every text that comes from the game (names, glyphs, values, errors)
// goes into the page through textContent or a DOM attribute, never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
let current = null;          // the last state the server sent
let busy = 0;                // requests under way (body[data-busy] lets tests wait for them)

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

// ---- drawing the state ----------------------------------------------------------------------

function vectorText(values) {
  return values.map((v) => `${v.player} ${v.text}`).join(", ");
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
  current = state;
  document.title = `${state.game} · gdl`;
  $("title").textContent = state.game;
  $("file").textContent = state.file;
  drawBoard(state.board);
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

async function showTree() {
  const depthText = $("tree-depth").value.trim();
  const depth = depthText === "" ? null : Number(depthText);
  $("tree-note").textContent = "searching…";
  try {
    const tree = await call("/api/tree", { depth });
    $("tree-note").textContent = `${tree.nodes} node(s) visited, ${tree.pruned} pruned` +
      (tree.svg ? "" : " (install Graphviz for a drawing)") + (tree.note ? `. ${tree.note}` : "");
    const image = $("tree-svg");
    if (tree.svg) {
      // An <img> never runs script, whatever the SVG holds.
      image.src = "data:image/svg+xml;base64," + btoa(unescape(encodeURIComponent(tree.svg)));
      image.hidden = false;
    } else {
      image.hidden = true;
      image.removeAttribute("src");
    }
    $("tree-text").textContent = tree.text;
  } catch (error) {
    $("tree-note").textContent = String(error.message || error);
    $("tree-text").textContent = "";
    $("tree-svg").hidden = true;
  }
}

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
