" Syntax of gdl rule files (*.game). The keyword lists are the grammar's words
" (grammars/game.lark); tests/test_editors.py keeps them in step with it.
if exists("b:current_syntax")
  finish
endif

" '-' belongs to words here, so that max-length is one keyword and not `max` then `length`.
syn iskeyword @,48-57,_,192-255,-
syn keyword gdlDeclaration game players param const var action define terminal utility evaluate
syn keyword gdlDeclaration quiet stuck endless display tree chance init
syn keyword gdlDeclaration zero-sum constant-sum max-length tier simultaneous private hidden
syn keyword gdlClause      requires effect by when as then
syn keyword gdlStatement   if else for in pass next random let repeat
syn keyword gdlOperator    and or not
syn keyword gdlQuantifier  any all count sum min max abs
syn keyword gdlBuiltin     mover bool
syn keyword gdlBoolean     true false
syn match   gdlNumber      "\<\d\+\>"
syn region  gdlString      start=+"+ end=+"+ oneline
syn match   gdlComment     "#.*$" contains=@Spell

hi def link gdlDeclaration Statement
hi def link gdlClause      Keyword
hi def link gdlStatement   Conditional
hi def link gdlOperator    Operator
hi def link gdlQuantifier  Repeat
hi def link gdlBuiltin     Type
hi def link gdlBoolean     Boolean
hi def link gdlNumber      Number
hi def link gdlString      String
hi def link gdlComment     Comment

let b:current_syntax = "gdl"
