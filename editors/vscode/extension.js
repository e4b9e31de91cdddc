// Starts `bendc --lsp` for Bend files; everything else comes from the server.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate() {
  const command = vscode.workspace.getConfiguration('bendc').get('path') || 'bendc';
  // No transport given: the client talks over stdio and adds no arguments.
  const server = { command, args: ['--lsp'] };
  client = new LanguageClient(
    'bendc',
    'Bend (bendc)',
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: 'file', language: 'bend' },
        { scheme: 'untitled', language: 'bend' },
      ],
    },
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
