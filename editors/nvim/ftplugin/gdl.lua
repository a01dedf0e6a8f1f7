-- gdl rule files: comments start with '#'; the language server is `gdl lsp` (pip install 'gdl[lsp]').
vim.bo.commentstring = "# %s"
vim.bo.expandtab = true
vim.bo.shiftwidth = 4

if vim.fn.executable("gdl") == 1 then
  vim.lsp.start({
    name = "gdl",
    cmd = { "gdl", "lsp" },
    root_dir = vim.fs.dirname(vim.fs.find({ "pyproject.toml", ".git" }, { upward = true })[1]
      or vim.api.nvim_buf_get_name(0)),
  })
end
