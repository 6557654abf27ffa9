public enum StreamCLIMain { public static func run(_ args: [String]) -> Int32 { 0 } }
