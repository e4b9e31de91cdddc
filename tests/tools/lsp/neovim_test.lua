-- Neovim's built-in LSP client drives `bendc --lsp`: a file with an error
-- gets its diagnostic; edits update the diagnostics; hover and definition
-- answer at positions. Every wait is on a condition with a long timeout.
--
-- Run by ctest as `nvim --headless -u NONE -c "luafile neovim_test.lua"`
-- with BENDC, BENDC_LSP_INPUTS and BENDC_LSP_SCRATCH in the environment.
-- Works with Neovim 0.7 (Debian 12) and later.

local TIMEOUT = 30000

local function fail(message)
  io.stderr:write("neovim_test: FAIL: " .. message .. "\n")
  vim.cmd("cquit! 1")
end

local function check(cond, message)
  if not cond then
    error(message, 2)
  end
end

local function wait(what, cond)
  if not vim.wait(TIMEOUT, cond, 10) then
    error("timed out waiting for " .. what, 2)
  end
end

local function run()
  local bendc = assert(os.getenv("BENDC"), "BENDC is not set")
  local inputs = assert(os.getenv("BENDC_LSP_INPUTS"), "BENDC_LSP_INPUTS is not set")
  local scratch = assert(os.getenv("BENDC_LSP_SCRATCH"), "BENDC_LSP_SCRATCH is not set")
  vim.fn.mkdir(scratch, "p")
  for _, name in ipairs({ "main.bend", "lib.bend" }) do
    vim.fn.writefile(vim.fn.readfile(inputs .. "/" .. name), scratch .. "/" .. name)
  end

  vim.cmd("edit " .. vim.fn.fnameescape(scratch .. "/main.bend"))
  local buf = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local function find(needle)
    for i, line in ipairs(lines) do
      local col = line:find(needle, 1, true)
      if col then
        return i - 1, col - 1
      end
    end
    error("no '" .. needle .. "' in main.bend")
  end

  -- An error before the server starts: the server must read the buffer's
  -- text, not the file on disk (which has no error).
  local xl, xc = find("double(3)")
  vim.api.nvim_buf_set_text(buf, xl, xc, xl, xc + 6, { "doubel" })

  local config = { name = "bendc", cmd = { bendc, "--lsp" }, root_dir = scratch }
  local client
  if vim.lsp.start then -- 0.8 and later: starts and attaches to the current buffer
    client = vim.lsp.start(config)
  else
    client = vim.lsp.start_client(config)
    if client then
      vim.lsp.buf_attach_client(buf, client)
    end
  end
  check(client, "the client did not start")

  wait("the first diagnostics", function()
    return #vim.diagnostic.get(buf) > 0
  end)
  local d = vim.diagnostic.get(buf)[1]
  check(d.lnum == xl and d.col == xc, ("the diagnostic is at %d:%d, not %d:%d"):format(d.lnum, d.col, xl, xc))
  check(d.message:find("doubel", 1, true), "unexpected message: " .. d.message)
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  check(code == "UnboundReference" or code == "UnboundVariable", "unexpected code: " .. tostring(code))

  -- Fix it as a person would: one character at a time.
  vim.api.nvim_buf_set_text(buf, xl, xc + 4, xl, xc + 6, { "" })
  vim.api.nvim_buf_set_text(buf, xl, xc + 4, xl, xc + 4, { "l" })
  vim.api.nvim_buf_set_text(buf, xl, xc + 5, xl, xc + 5, { "e" })
  wait("the diagnostics to clear", function()
    return #vim.diagnostic.get(buf) == 0
  end)

  -- A new error elsewhere shows up where it is.
  local rl, rc = find("t.right")
  vim.api.nvim_buf_set_text(buf, rl, rc + 2, rl, rc + 7, { "rigth" })
  wait("a diagnostic about 't.rigth'", function()
    for _, diag in ipairs(vim.diagnostic.get(buf)) do
      if diag.message:find("t.rigth", 1, true) and diag.lnum == rl then
        return true
      end
    end
    return false
  end)
  vim.api.nvim_buf_set_text(buf, rl, rc + 2, rl, rc + 7, { "right" })
  wait("the diagnostics to clear again", function()
    return #vim.diagnostic.get(buf) == 0
  end)

  local function request(method, line, col)
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      position = { line = line, character = col },
    }
    local replies, err = vim.lsp.buf_request_sync(buf, method, params, TIMEOUT)
    check(replies, method .. " failed: " .. tostring(err))
    local reply = replies[client]
    check(reply and not reply.err, method .. " answered with an error: " .. vim.inspect(reply))
    return reply.result
  end

  -- Hover over a use of `sum`: its inferred type and its comment.
  local sl, sc = find("sum(t.left)")
  local hover = request("textDocument/hover", sl, sc + 1)
  check(hover and hover.contents, "no hover")
  local text = hover.contents.value or vim.inspect(hover.contents)
  check(text:find("sum: Bin -> u24", 1, true), "hover shows: " .. text)
  check(text:find("Adds up a tree's leaves.", 1, true), "hover lacks the documentation: " .. text)

  -- Definition of the imported `double`: the library file.
  local def = request("textDocument/definition", xl, xc + 2)
  if def and def[1] then
    def = def[1]
  end
  check(def and def.uri, "no definition: " .. vim.inspect(def))
  check(def.uri == vim.uri_from_fname(scratch .. "/lib.bend"), "definition in " .. def.uri)
  check(def.range.start.line == 1, "definition at line " .. def.range.start.line)

  -- Definition of a local variable: where it is assigned.
  local ul, uc = find("Bin/Leaf(x)")
  local al, ac = find("x = double")
  def = request("textDocument/definition", ul, uc + 9)
  if def and def[1] then
    def = def[1]
  end
  check(def and def.range.start.line == al and def.range.start.character == ac,
    "definition of x: " .. vim.inspect(def))

  vim.lsp.stop_client(client)
  wait("the server to stop", function()
    return vim.lsp.get_client_by_id(client) == nil
  end)
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  fail(tostring(err))
end
io.stdout:write("neovim_test: ok\n")
vim.cmd("qall!")
