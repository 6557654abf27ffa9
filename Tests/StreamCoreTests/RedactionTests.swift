import Testing
@testable import StreamCore

@Suite struct RedactionTests {
    @Test func replacesEveryOccurrence() {
        let text = "publish abc123 to rtmp://host/live/abc123?k=abc123"
        #expect(Redaction.redact(text, secrets: ["abc123"]) == "publish •••• to rtmp://host/live/••••?k=••••")
    }

    @Test func ignoresEmptySecretsAndLeavesOtherTextAlone() {
        #expect(Redaction.redact("nothing secret", secrets: ["", "absent"]) == "nothing secret")
        #expect(Redaction.redact("", secrets: ["x"]) == "")
    }

    @Test func masksLongerSecretsWholeEvenWhenTheyContainAShorterOne() {
        #expect(Redaction.redact("key=abcdef", secrets: ["abc", "abcdef"]) == "key=••••")
    }

    @Test func handlesAdjacentOccurrencesAndUnicode() {
        #expect(Redaction.redact("ñkeyñkeyñ", secrets: ["ñkey"]) == "••••••••ñ")
    }
}
