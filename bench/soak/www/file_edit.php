<?php
// file_edit on a file every worker edits at once: file_read (the gate), then one edit that
// adds this request's line above the end marker. The load generator keeps the ids of the
// acknowledged edits and checks at the end that every one of them is in the file.
//   file_edit.php?id=N&file=shared/edits-K.txt

declare(strict_types=1);

require __DIR__ . '/_soak.php';

use PhpClaw\Tools\FileEditTool;
use PhpClaw\Tools\FileReadTool;

use function PhpClawSoak\{expect, request_id, serve, success, ws};

serve(static function (): array {
    $file = (string) ($_GET['file'] ?? '');
    expect(preg_match('~^shared/edits-\d+\.txt$~', $file) === 1, "bad file parameter '$file'");
    success((new FileReadTool(ws()))->execute(['path' => $file, 'limit' => 1]));
    $id = request_id();
    $data = success((new FileEditTool(ws()))->execute(['path' => $file, 'old_str' => "<<END>>\n", 'new_str' => "edit $id\n<<END>>\n"]))['data'];
    expect($data['status'] === 'edited', 'not edited: ' . json_encode($data));

    return ['edited' => $id];
});
