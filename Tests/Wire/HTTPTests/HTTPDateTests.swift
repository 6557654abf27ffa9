import HTTP
import Testing

struct HTTPDateTests {
    /// RFC 9110 §5.6.7's example, the epoch and the second before it, a leap day, the end of 1999, and 2100
    /// (not a leap year: the day after 28 February is 1 March).
    @Test(arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"), (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"), (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (946_684_799, "Fri, 31 Dec 1999 23:59:59 GMT"), (4_107_542_400, "Mon, 01 Mar 2100 00:00:00 GMT"),
    ])
    func formats(seconds: Int, text: String) {
        #expect(HTTPDate.format(secondsSince1970: seconds) == text)
    }
}
