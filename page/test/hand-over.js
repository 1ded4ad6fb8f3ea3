// ---- The tests' hand-over: in the build the tests load, never in the page ----
// tools/page.py puts this file after the script's sections, in their scope, only when asked
// for the tests' build (script(tests=True)); the script a browser gets has no such code.

// Hand the pure parts to the unit tests (test_all.py): to listeners there before the script ran.
function handOver() {
  const parts = {parseJSON, writeJSON, groupSize, showTree, filterTree, findMatches,
    headerProblem, shellQuote, curlCommand, rawRequest, fieldJSON, URL_IN_TEXT, compareNumbers,
    numberProblem, schemaKind, matchesPattern, lineReader, idHeader, detailOf, timingText,
    jwtClaims, whoOf, clockText, challengesText, needsText, basicCredential, allowedEndpoint,
    randomToken, pkceChallenge, authorizationURL, authorizationAnswer, withoutAnswer,
    answerProblem, mergedScopes, boundedHistory, historyEntry, codeHeaders, httpieCommand,
    pythonCode, fetchCode, leftOutPaths, leaveOut, pythonLiteral, pytestTest, diffJSON, pointer,
    diffHeaders, bodyDifferences, packed, unpacked, grouped, timeOfDay};
  document.dispatchEvent(new CustomEvent("flask-api:script", {detail: Object.freeze(parts)}));
}

handOver();
