//! Lets the core's JSON encoder read PHP values in place: a borrowed zval seen through
//! `core::json::ValueView`, so an envelope is encoded without copying the PHP array first.

use ext_php_rs::types::{ZendHashTable, Zval};

use super::zend::{self, Key};
use crate::core::json::{ArrayView, ElementFn, EncodeError, KeyRef, ValueView, View};

/// A zval, viewed by the encoder.
#[repr(transparent)]
pub struct ZvalView(Zval);

/// A PHP array, viewed by the encoder.
#[repr(transparent)]
pub struct ArrayRef(ZendHashTable);

impl ZvalView {
    /// View a borrowed zval.
    pub fn new(zv: &Zval) -> &ZvalView {
        // SAFETY: `ZvalView` is a transparent wrapper of `Zval`.
        unsafe { &*std::ptr::from_ref(zv).cast::<ZvalView>() }
    }
}

impl ValueView for ZvalView {
    type Array = ArrayRef;

    fn view(&self) -> View<'_, ArrayRef> {
        let zv = self.0.dereference();
        if let Some(ht) = zv.array() {
            // SAFETY: `ArrayRef` is a transparent wrapper of `ZendHashTable`.
            return View::Array(unsafe { &*std::ptr::from_ref(ht).cast::<ArrayRef>() });
        }
        if let Some(s) = zv.zend_str() {
            return View::Str(s.as_bytes());
        }
        if let Some(i) = zv.long() {
            return View::Int(i);
        }
        if zv.is_double() {
            return View::Float(zv.double().unwrap_or(0.0));
        }
        if let Some(b) = zv.bool() {
            return View::Bool(b);
        }
        if zv.is_null() {
            return View::Null;
        }
        View::Object
    }
}

impl ArrayView for ArrayRef {
    type Item = ZvalView;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_list(&self) -> bool {
        // PHP's `zend_array_is_list`: keys exactly 0..n-1 in order.
        let mut expected: i64 = 0;
        let mut list = true;
        zend::for_each_entry(&self.0, |key, _| {
            list = key == Key::Int(expected);
            expected += 1;
            list
        });
        list
    }

    fn try_for_each(&self, f: &mut ElementFn<'_, ZvalView>) -> Result<(), EncodeError> {
        let mut result = Ok(());
        zend::for_each_entry(&self.0, |key, value| {
            let key = match key {
                Key::Int(i) => KeyRef::Int(i),
                Key::Str(s) => KeyRef::Str(s),
            };
            result = f(key, ZvalView::new(value));
            result.is_ok()
        });
        result
    }
}
