-- Rule files of gdl (https://github.com/.../gdl): *.game
vim.filetype.add({ extension = { game = "gdl" } })
